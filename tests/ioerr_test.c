/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** ioerr_test.c: I/O error sweep over the virtual table's writes.
**
** A VFS shim (tests/vfsshim.h) fails the Nth xWrite, xTruncate, xSync or
** xDelete of a connection: with SQLITE_IOERR_WRITE, _TRUNCATE, _FSYNC or
** _DELETE, or (the "full" kind) with SQLITE_FULL for a write.  Transient:
** that one call only; persistent: that call and every later one until
** the body ends (transient only under the sanitizers: CUCKOO_SANITIZED=1,
** which make asan sets).  A third kind fails no call: PRAGMA max_page_count lets
** the database grow by N - 1 pages, so SQLite's own SQLITE_FULL ends the
** statement that needs one more.  The body is five transactions on a
** file database in rollback-journal or WAL mode, with a 2 KiB block
** cache and a 16-page page cache, so both spill in the middle of
** transactions: inserts in a transaction (deferred, TEXT, growing the
** table), OR IGNORE, a read between writes, a savepoint rolled back to, a
** delete, rows of an ordinary table with a UNIQUE column (a statement
** SQLite can undo alone), cuckoo_check() with a 2-page page cache (its
** reads spill the transaction's pages), a bulk insert of integers outside a
** transaction, an update, OR REPLACE, BLOB items, a one-row commit (a
** log row: docs/format.md) and a 'merge'.  For every journal mode, kind
** and mode, N = 1, 2, ... until a run meets no failure.  The body stops
** at its first failed statement: if SQLite rolled the transaction back
** (as it does after an I/O error, and after SQLITE_FULL in the table's
** own writes), the run stops there; if it undid the statement alone, the
** rest of the transaction runs, injection off, and commits.  Then:
**   1. the error is an I/O error or SQLITE_FULL (never corruption), and
**      a check that answers answers 'ok' (an I/O error reported as a
**      problem would hide a rolled-back transaction);
**   2. on the connection that saw it: PRAGMA integrity_check and
**      cuckoo_check() are 'ok', and the database (every row of every
**      table, shadow tables included: tl_db_dump) is that of a run
**      without injection after the transactions that committed: those
**      whose last statement succeeded, and the failed one too if its
**      last statement (COMMIT) failed, which may or may not have made it
**      durable; after a statement undone alone, the transaction without
**      it (or with it whole), the table's cookie included;
**   3. a lookup of every item through the table gives what it gives on
**      that database, and one more INSERT on the same connection gives
**      the database that INSERT gives there (a stale block cache would
**      show in either);
**   4. closed and opened again (recovering a hot journal or the WAL),
**      the database is the same and sound.
** The last line is "ioerr_test: N passed, N failed".
*/
#include <sqlite3.h>

#include "testlib.h"
#include "vfsshim.h"

int sqlite3_cuckoo_init(sqlite3 *db, char **pzErr, const void *pApi);

static long g_nCall = 0;  /* hooked calls so far in this run */
static long g_nFailAt = 0; /* 0: never */
static int g_bFull = 0;   /* a write fails with SQLITE_FULL */
static int g_bLimit = 0;  /* no call fails: PRAGMA max_page_count does */
static int g_bPersistent = 0;
static int g_nFailed = 0; /* calls failed in this run */
static long g_nAlone = 0; /* runs whose failed statement was undone alone */

static int ioerr_io(int eOp) {
  if (g_nFailAt == 0) return 0;
  if (g_nFailed == 0 || !g_bPersistent) {
    if (++g_nCall != g_nFailAt) return 0;
  }
  g_nFailed++;
  switch (eOp) {
  case SHIM_WRITE:
    return g_bFull ? SQLITE_FULL : SQLITE_IOERR_WRITE;
  case SHIM_TRUNCATE:
    return SQLITE_IOERR_TRUNCATE;
  case SHIM_SYNC:
    return SQLITE_IOERR_FSYNC;
  default:
    return SQLITE_IOERR_DELETE;
  }
}

static const char *zSetup =
    "CREATE TABLE n(i INTEGER PRIMARY KEY);"
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c "
    "  WHERE i < 3000) INSERT INTO n SELECT i FROM c;"
    "CREATE TABLE mark(k UNIQUE);"
    "CREATE VIRTUAL TABLE t USING cuckoo(capacity=1000, block_size=256, "
    "  cache_size=2);"
    "INSERT INTO t(item) SELECT 'base' || i FROM n WHERE i <= 500;";

/* The body: transactions, each ending with a statement marked by a
** leading '.' (COMMIT, or a statement of its own outside a transaction);
** a leading '?' marks a check, whose answer must be 'ok' when it gives
** one (reading the blocks, it makes SQLite spill its page cache). */
static const char *azBody[] = {
    "BEGIN",
    "INSERT INTO t(item) SELECT 'a' || i FROM n WHERE i <= 1200",
    "INSERT OR IGNORE INTO t(item) SELECT 'base' || i FROM n WHERE i <= 600",
    "SELECT count(*) FROM t WHERE item = 'a1200'",
    "SAVEPOINT s",
    "INSERT INTO t(item) SELECT 'junk' || i FROM n WHERE i <= 200",
    "ROLLBACK TO s",
    "RELEASE s",
    "DELETE FROM t WHERE item = 'base7'",
    "INSERT INTO mark SELECT i FROM n WHERE i <= 600",
    "PRAGMA cache_size = 2",
    "?SELECT cuckoo_check('t')",
    "PRAGMA cache_size = 16",
    "INSERT INTO t(item) SELECT 'c' || i FROM n WHERE i <= 100",
    ".COMMIT",
    ".INSERT INTO t(item) SELECT i FROM n",
    "BEGIN",
    "UPDATE t SET item = 'upd' WHERE item = 'a5'",
    "INSERT OR REPLACE INTO t(item) VALUES ('base1')",
    "INSERT INTO t(item) SELECT CAST('b' || i AS BLOB) FROM n WHERE i <= 300",
    "INSERT INTO mark SELECT -i FROM n WHERE i <= 600",
    "?SELECT cuckoo_check('t')",
    ".COMMIT",
    ".INSERT INTO t(item) VALUES ('small')",
    ".INSERT INTO t(t) VALUES ('merge')",
};
#define N_BODY (int)(sizeof(azBody) / sizeof(azBody[0]))
#define N_TXN 5

/* What the checks read through the table: its count, and how many of
** every item the body and setup use it finds. */
#define LOOKUP_SQL                                                             \
  "SELECT json_extract(cuckoo_table_info('t'), '$.count'), "                  \
  "(SELECT count(*) FROM n JOIN t ON t.item = 'base' || n.i), "               \
  "(SELECT count(*) FROM n JOIN t ON t.item = 'a' || n.i), "                  \
  "(SELECT count(*) FROM n JOIN t ON t.item = n.i), "                         \
  "(SELECT count(*) FROM n JOIN t ON t.item = CAST('b' || n.i AS BLOB)), "    \
  "(SELECT count(*) FROM t WHERE item = 'upd')"
#define AFTER_SQL "INSERT INTO t(item) VALUES ('after-ioerr')"

static char zDir[512];

static sqlite3 *open_run(const char *zFile, int bShim) {
  sqlite3 *db = 0;
  if (sqlite3_open_v2(zFile, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                      bShim ? "ioshim" : 0) != SQLITE_OK) {
    tl_die("cannot open %s: %s", zFile, db ? sqlite3_errmsg(db) : "");
  }
  if (sqlite3_cuckoo_init(db, 0, 0) != SQLITE_OK) tl_die("cannot load cuckoo");
  tl_exec(db, "PRAGMA cache_size = 16");
  return db;
}

/* The first column of each row of zSql joined by '|', or NULL on error. */
static char *one_row(sqlite3 *db, const char *zSql) {
  sqlite3_stmt *s = 0;
  sqlite3_str *p;
  int i;
  if (sqlite3_prepare_v2(db, zSql, -1, &s, 0) != SQLITE_OK) return 0;
  if (sqlite3_step(s) != SQLITE_ROW) {
    sqlite3_finalize(s);
    return 0;
  }
  p = sqlite3_str_new(0);
  for (i = 0; i < sqlite3_column_count(s); i++)
    sqlite3_str_appendf(p, "%s|", sqlite3_column_text(s, i));
  sqlite3_finalize(s);
  return sqlite3_str_finish(p);
}

static void copy_file(const char *zFrom, const char *zTo) {
  FILE *in = fopen(zFrom, "rb"), *out = fopen(zTo, "wb");
  char buf[65536];
  size_t n;
  if (!in || !out) tl_die("cannot copy %s to %s", zFrom, zTo);
  while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
    if (fwrite(buf, 1, n, out) != n) tl_die("cannot write %s", zTo);
  fclose(in);
  if (fclose(out) != 0) tl_die("cannot write %s", zTo);
}

static void remove_db(const char *zFile) {
  static const char *azSuffix[] = {"", "-journal", "-wal", "-shm"};
  char z[600];
  int i;
  for (i = 0; i < 4; i++) {
    snprintf(z, sizeof(z), "%s%s", zFile, azSuffix[i]);
    remove(z);
  }
}

/* A reference state, without injection: the dump, the lookups, and the
** dump after one more INSERT (zDump NULL: none). */
typedef struct ref {
  char *zDump, *zLookup, *zAfter;
} ref;

/* The references of one journal mode: aRef[k], after the first k of the
** body's transactions (k = 0 .. N_TXN); aSkip[i], after the transactions
** up to the one of statement i run without statement i (none if that
** does not run to its end, or i ends its transaction). */
typedef struct refs {
  ref aRef[N_TXN + 1];
  ref aSkip[N_BODY];
} refs;

static const char *body_sql(int i) {
  return azBody[i][0] == '.' || azBody[i][0] == '?' ? azBody[i] + 1
                                                     : azBody[i];
}

/* Run statement i of the body: SQLITE_OK or the error.  A check that
** answers must answer 'ok'. */
static int body_exec(sqlite3 *db, int i) {
  sqlite3_stmt *s = 0;
  int rc;
  if (azBody[i][0] != '?') return sqlite3_exec(db, body_sql(i), 0, 0, 0);
  rc = sqlite3_prepare_v2(db, body_sql(i), -1, &s, 0);
  if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
    const char *z = (const char *)sqlite3_column_text(s, 0);
    tl_check(z && strcmp(z, "ok") == 0, "statement %d: %s", i,
             z ? z : "(NULL)");
    rc = SQLITE_OK;
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  if (rc != SQLITE_OK) {
    sqlite3_finalize(s); /* (its error stays the connection's) */
    return rc;
  }
  return sqlite3_finalize(s);
}

/* Run the body on db, but statement iSkip, until nTxn transactions have
** ended or a statement fails: returns the number of transactions
** committed, *piFailed the index of the failed statement (-1 if none),
** *prc its extended code. */
static int run_body(sqlite3 *db, int nTxn, int iSkip, int *piFailed,
                    int *prc) {
  int i, k = 0;
  *piFailed = -1;
  *prc = SQLITE_OK;
  for (i = 0; i < N_BODY && k < nTxn; i++) {
    if (i != iSkip && body_exec(db, i) != SQLITE_OK) {
      *piFailed = i;
      *prc = sqlite3_extended_errcode(db);
      break;
    }
    if (azBody[i][0] == '.') k++;
  }
  return k;
}

static void ref_free(ref *r) {
  sqlite3_free(r->zDump);
  sqlite3_free(r->zLookup);
  sqlite3_free(r->zAfter);
  memset(r, 0, sizeof(*r));
}

/* One reference: nTxn transactions without statement iSkip. */
static void make_ref(const char *zTemplate, int nTxn, int iSkip, ref *r) {
  char zFile[600];
  sqlite3 *db;
  int iFailed, rc;
  memset(r, 0, sizeof(*r));
  snprintf(zFile, sizeof(zFile), "%s/ref.db", zDir);
  remove_db(zFile);
  copy_file(zTemplate, zFile);
  db = open_run(zFile, 0);
  if (run_body(db, nTxn, iSkip, &iFailed, &rc) == nTxn) {
    r->zDump = tl_db_dump(db);
    r->zLookup = one_row(db, LOOKUP_SQL);
    tl_exec(db, AFTER_SQL);
    r->zAfter = tl_db_dump(db);
    if (!r->zDump || !r->zLookup || !r->zAfter) {
      tl_die("reference of %d transactions: a query failed", nTxn);
    }
  } else if (iSkip < 0) {
    tl_die("reference of %d transactions failed", nTxn);
  }
  sqlite3_close(db);
  remove_db(zFile);
}

static void make_refs(const char *zTemplate, refs *pR) {
  int k, i;
  for (k = 0; k <= N_TXN; k++)
    make_ref(zTemplate, k, -1, &pR->aRef[k]);
  for (i = 0, k = 0; i < N_BODY; i++) {
    if (azBody[i][0] == '.') {
      k++;
      memset(&pR->aSkip[i], 0, sizeof(ref));
    } else {
      make_ref(zTemplate, k + 1, i, &pR->aSkip[i]);
    }
  }
}

static int is_ok(sqlite3 *db, const char *zSql) {
  char *z = one_row(db, zSql);
  int ok = z && strcmp(z, "ok|") == 0;
  sqlite3_free(z);
  return ok;
}

/* Are two dumps (either may be NULL: a failed dump) the same?  Row for
** row, the table's cookie included: after a statement undone alone (a
** ROLLBACK TO) the table knows whether the rollback undid its bump, so
** the cookie is exactly the reference's. */
static int same_dump(const char *zA, const char *zB) {
  return zA && zB && strcmp(zA, zB) == 0;
}

/* After statement iFailed of a transaction failed and SQLite kept the
** transaction open (it undid the statement alone, as after SQLITE_FULL
** with a statement journal): the rest of the transaction, injection off.
** Returns 1 if it committed, 0 if a statement failed (then rolled
** back), which only the errors a savepoint's lost inserts give may do. */
static int finish_txn(sqlite3 *db, int iFailed, const char *zMode, long n) {
  int j;
  for (j = iFailed + 1; j < N_BODY; j++) {
    if (body_exec(db, j) != SQLITE_OK) {
      const char *zErr = sqlite3_errmsg(db);
      tl_check(strstr(zErr, "no such savepoint") ||
                   strstr(zErr, "the transaction must be rolled back"),
               "%s N=%ld: after statement %d failed, statement %d: %s", zMode,
               n, iFailed, j, zErr);
      sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
      return 0;
    }
    if (azBody[j][0] == '.') break;
  }
  return 1;
}

/* One run: the body with the Nth call failing.  Returns 1 if a call
** failed (the sweep goes on), 0 if none did. */
static int run_one(const char *zTemplate, const refs *pR, const char *zMode,
                   long n) {
  char zFile[600];
  sqlite3 *db;
  int iFailed, rc, k, j, bFailed, nCand = 0;
  const ref *aCand[2], *pOk = 0;
  char *zLookup, *zAfter;
  snprintf(zFile, sizeof(zFile), "%s/run.db", zDir);
  remove_db(zFile);
  copy_file(zTemplate, zFile);
  db = open_run(zFile, 1);
  g_nCall = 0;
  g_nFailed = 0;
  if (g_bLimit) {
    /* the database may grow by n - 1 pages */
    char *z = sqlite3_mprintf("PRAGMA max_page_count = %lld",
                              tl_one_int(db, "PRAGMA page_count") + n - 1);
    tl_exec(db, z);
    sqlite3_free(z);
  } else {
    g_nFailAt = n;
  }
  k = run_body(db, N_TXN, -1, &iFailed, &rc);
  g_nFailAt = 0;
  bFailed = g_bLimit ? iFailed >= 0 : g_nFailed > 0;
  /* 1. only I/O errors and SQLITE_FULL */
  tl_check(iFailed < 0 || (rc & 0xff) == SQLITE_IOERR ||
               (rc & 0xff) == SQLITE_FULL,
           "%s N=%ld: statement %d failed with %d: %s", zMode, n, iFailed, rc,
           sqlite3_errmsg(db));
  tl_check(iFailed < 0 || bFailed,
           "%s N=%ld: statement %d failed (%d) with no I/O call failed", zMode,
           n, iFailed, rc);
  if (g_bLimit) tl_exec(db, "PRAGMA max_page_count = 1000000000");
  /* the states the database may be in: a failed statement takes effect
  ** whole or not at all, and so does a failed COMMIT */
  if (iFailed < 0) {
    aCand[nCand++] = &pR->aRef[k];
  } else if (azBody[iFailed][0] != '.' && !sqlite3_get_autocommit(db)) {
    g_nAlone++;
    if (finish_txn(db, iFailed, zMode, n)) {
      aCand[nCand++] = &pR->aSkip[iFailed];
      aCand[nCand++] = &pR->aRef[k + 1];
    } else {
      aCand[nCand++] = &pR->aRef[k];
    }
  } else {
    sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
    aCand[nCand++] = &pR->aRef[k];
    if (azBody[iFailed][0] == '.') aCand[nCand++] = &pR->aRef[k + 1];
  }
  /* 2. sound, and one of those states */
  tl_check(is_ok(db, "PRAGMA integrity_check") &&
               is_ok(db, "SELECT cuckoo_check('t')"),
           "%s N=%ld: not sound after statement %d failed", zMode, n, iFailed);
  {
    char *zDump = tl_db_dump(db);
    for (j = 0; j < nCand; j++) {
      if (same_dump(zDump, aCand[j]->zDump)) pOk = aCand[j];
    }
    tl_check(pOk != 0,
             "%s N=%ld: statement %d failed (%d), %d transactions committed: "
             "the database is not theirs",
             zMode, n, iFailed, rc, k);
    sqlite3_free(zDump);
  }
  if (pOk == 0) pOk = aCand[0];
  if (pOk->zDump == 0) pOk = &pR->aRef[k];
  /* 3. reads and one more write through the same connection */
  zLookup = one_row(db, LOOKUP_SQL);
  tl_check(zLookup && strcmp(zLookup, pOk->zLookup) == 0,
           "%s N=%ld: lookups %s, expected %s", zMode, n,
           zLookup ? zLookup : "(error)", pOk->zLookup);
  sqlite3_free(zLookup);
  tl_check(sqlite3_exec(db, AFTER_SQL, 0, 0, 0) == SQLITE_OK,
           "%s N=%ld: insert after the failure: %s", zMode, n,
           sqlite3_errmsg(db));
  zAfter = tl_db_dump(db);
  tl_check(same_dump(zAfter, pOk->zAfter),
           "%s N=%ld: one more insert after the failure gives another database",
           zMode, n);
  sqlite3_close(db);
  /* 4. reopened */
  db = open_run(zFile, 0);
  {
    char *zDump = tl_db_dump(db);
    tl_check(same_dump(zDump, zAfter) &&
                 is_ok(db, "PRAGMA integrity_check") &&
                 is_ok(db, "SELECT cuckoo_check('t')"),
             "%s N=%ld: reopened, the database differs or is not sound", zMode,
             n);
    sqlite3_free(zDump);
  }
  sqlite3_free(zAfter);
  sqlite3_close(db);
  return bFailed;
}

int main(int argc, char **argv) {
  static const char *azJournal[] = {"delete", "wal"};
  int iJ, iKind, iPers;
  const char *zSan = getenv("CUCKOO_SANITIZED");
  int bSanitized = zSan && strcmp(zSan, "1") == 0;
  tl_zProgram = "ioerr_test";
  if (argc > 1) tl_die("usage: %s (no options)", argv[0]);
  snprintf(zDir, sizeof(zDir), "build/ioerr");
  if (system("mkdir -p build/ioerr") != 0) tl_die("cannot create build/ioerr");
  shim_register("ioshim");
  shim_io = ioerr_io;
  for (iJ = 0; iJ < 2; iJ++) {
    char zTemplate[600], zMode[64];
    static refs R;
    sqlite3 *db;
    int k;
    snprintf(zTemplate, sizeof(zTemplate), "%s/template-%s.db", zDir,
             azJournal[iJ]);
    remove_db(zTemplate);
    db = open_run(zTemplate, 0);
    {
      char *z = sqlite3_mprintf("PRAGMA journal_mode = %s", azJournal[iJ]);
      tl_exec(db, z);
      sqlite3_free(z);
    }
    tl_exec(db, zSetup);
    sqlite3_close(db); /* (the last connection checkpoints the WAL) */
    make_refs(zTemplate, &R);
    for (iKind = 0; iKind < 3; iKind++) {
      /* (under the sanitizers, transient failures only: a third of the
      ** time) */
      for (iPers = 0; iPers < 2 - (iKind == 2 || bSanitized); iPers++) {
        long n, nRuns = 0;
        int nPass0 = tl_nPass;
        g_nAlone = 0;
        g_bFull = iKind == 1;
        g_bLimit = iKind == 2;
        g_bPersistent = iPers;
        snprintf(zMode, sizeof(zMode), "%s %s %s", azJournal[iJ],
                 iKind == 2 ? "max_page_count"
                 : iKind    ? "full"
                            : "ioerr",
                 iKind == 2 ? "" : iPers ? "persistent" : "transient");
        for (n = 1; run_one(zTemplate, &R, zMode, n); n++)
          nRuns++;
        printf("%-30s %5ld runs (%3ld with the failed statement undone "
               "alone), %6d checks\n",
               zMode, nRuns + 1, g_nAlone, tl_nPass - nPass0);
        fflush(stdout);
      }
    }
    for (k = 0; k <= N_TXN; k++)
      ref_free(&R.aRef[k]);
    for (k = 0; k < N_BODY; k++)
      ref_free(&R.aSkip[k]);
    remove_db(zTemplate);
  }
  return tl_report("ioerr_test");
}
