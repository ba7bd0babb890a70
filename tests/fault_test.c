/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** fault_test.c: out-of-memory sweep over the SQL layer.
**
** A countdown allocator, installed with sqlite3_config(SQLITE_CONFIG_MALLOC)
** around SQLite's default allocator, fails the Nth allocation (transient:
** that one only; persistent: that one and every later one).  For each
** scenario and N = 1, 2, 3, ... the scenario's statements run on a fresh
** in-memory database with the extension linked statically (-DSQLITE_CORE);
** the sweep for a scenario ends at the first N where no allocation was
** failed.  Every run must:
**   1. end in success or a clean error (SQLITE_NOMEM, or an error whose
**      message says "out of memory"); never a crash (run under ASan);
**   2. leave no leak: sqlite3_memory_used() returns to its value before the
**      database was opened once the connection is closed;
**   3. leave exactly the state of a run without injection: the body runs
**      statement by statement; if statement k fails, then after a ROLLBACK
**      (for a transaction left open) the whole database, every row of
**      every table (the cuckoo tables' shadow tables included) and the
**      schema, must equal that of a run without injection of the first k
**      statements (or k+1: a statement takes effect whole or not at all)
**      followed by the same ROLLBACK; on success it must equal the
**      complete run's;
**   4. leave working tables: after a failure, cuckoo_check() is 'ok' for
**      every cuckoo table and PRAGMA integrity_check is 'ok'; then one
**      more INSERT into every cuckoo table, on the connection that saw the
**      failure, gives again the same database as that INSERT after the
**      run without injection (a stale block cache would show here); and,
**      with injection off, the scenario's check query gives its expected
**      answer after a success.
** The last line is "fault_test: N passed, N failed".
*/
#include <sqlite3.h>

#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sqlite3_cuckoo_init(sqlite3 *db, char **pzErr, const void *pApi);

static sqlite3_mem_methods g_orig;
static int g_countdown = 0; /* fail when it reaches 0 after decrement */
static int g_persistent = 0;
static int g_failing = 0; /* persistent mode: failing from now on */
static int g_nfail = 0;   /* allocations failed in this run */

static int fault_now(void) {
  if (g_failing) {
    g_nfail++;
    return 1;
  }
  if (g_countdown > 0 && --g_countdown == 0) {
    g_nfail++;
    if (g_persistent) g_failing = 1;
    return 1;
  }
  return 0;
}

static void *fault_malloc(int n) { return fault_now() ? 0 : g_orig.xMalloc(n); }
static void *fault_realloc(void *p, int n) {
  return fault_now() ? 0 : g_orig.xRealloc(p, n);
}
static void fault_free(void *p) { g_orig.xFree(p); }
static int fault_size(void *p) { return g_orig.xSize(p); }
static int fault_roundup(int n) { return g_orig.xRoundup(n); }
static int fault_init(void *p) { return g_orig.xInit(p); }
static void fault_shutdown(void *p) { g_orig.xShutdown(p); }

static void fault_arm(int n, int persistent) {
  g_countdown = n;
  g_persistent = persistent;
  g_failing = 0;
  g_nfail = 0;
}
static void fault_disarm(void) {
  g_countdown = 0;
  g_failing = 0;
}

/* One check of a scenario run with the N-th allocation failing. */
static void check(int ok, const char *zScenario, int n, int persistent,
                  const char *zWhat, const char *zDetail) {
  tl_check(ok, "%s N=%d %s: %s %s", zScenario, n,
           persistent ? "persistent" : "transient", zWhat,
           zDetail ? zDetail : "");
}

typedef struct scenario {
  const char *zName;
  const char *zSetup;  /* run without injection */
  const char *zBody;   /* run with injection (statements, in order) */
  const char *zCheck;  /* query without injection: expected single value */
  const char *zExpect; /* expected text of zCheck's first column */
} scenario;

/* Run zSql statement by statement; *pnDone: statements completed.
** Returns the first error code (message in *pzErr, sqlite3_malloc'd). */
static int exec_counted(sqlite3 *db, const char *zSql, int *pnDone,
                        char **pzErr) {
  const char *zTail = zSql;
  int rc = SQLITE_OK;
  *pnDone = 0;
  *pzErr = 0;
  while (rc == SQLITE_OK && zTail && zTail[0]) {
    sqlite3_stmt *pStmt = 0;
    rc = sqlite3_prepare_v2(db, zTail, -1, &pStmt, &zTail);
    if (rc == SQLITE_OK && pStmt == 0) break; /* only white space left */
    if (rc == SQLITE_OK) {
      while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
      }
      if (rc == SQLITE_DONE) rc = SQLITE_OK;
    }
    sqlite3_finalize(pStmt);
    if (rc == SQLITE_OK) {
      (*pnDone)++;
    } else {
      *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
    }
  }
  return rc;
}

/* The first nStmt statements of zSql (all with nStmt < 0). */
static int exec_first(sqlite3 *db, const char *zSql, int nStmt) {
  const char *zTail = zSql;
  int rc = SQLITE_OK, n = 0;
  while (rc == SQLITE_OK && zTail && zTail[0] && (nStmt < 0 || n < nStmt)) {
    sqlite3_stmt *pStmt = 0;
    rc = sqlite3_prepare_v2(db, zTail, -1, &pStmt, &zTail);
    if (rc == SQLITE_OK && pStmt == 0) break;
    if (rc == SQLITE_OK) {
      while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
      }
      if (rc == SQLITE_DONE) rc = SQLITE_OK;
    }
    sqlite3_finalize(pStmt);
    n++;
  }
  return rc;
}

/* After-failure probe: one more row into every cuckoo table. */
#define AFTER_SQL "INSERT INTO \"%w\" VALUES ('after-oom')"

/* Each cuckoo table of db, as a list of names (sqlite3_malloc'd array of
** sqlite3_malloc'd strings, NULL-terminated). */
static char **cuckoo_tables(sqlite3 *db) {
  sqlite3_stmt *s = 0;
  char **az = sqlite3_malloc64(sizeof(char *) * 17);
  int n = 0;
  memset(az, 0, sizeof(char *) * 17);
  if (sqlite3_prepare_v2(db,
                         "SELECT name FROM sqlite_master WHERE type = 'table' "
                         "AND sql LIKE 'CREATE VIRTUAL TABLE%USING cuckoo%' "
                         "ORDER BY name",
                         -1, &s, 0) == SQLITE_OK) {
    while (n < 16 && sqlite3_step(s) == SQLITE_ROW)
      az[n++] = sqlite3_mprintf("%s", sqlite3_column_text(s, 0));
  }
  sqlite3_finalize(s);
  return az;
}
static void free_list(char **az) {
  int i;
  for (i = 0; az && az[i]; i++)
    sqlite3_free(az[i]);
  sqlite3_free(az);
}
static void insert_after(sqlite3 *db, char **azTab) {
  int i;
  for (i = 0; azTab[i]; i++) {
    char *z = sqlite3_mprintf(AFTER_SQL, azTab[i]);
    sqlite3_exec(db, z, 0, 0, 0);
    sqlite3_free(z);
  }
}

/*
** The reference: a database without injection after the setup, the first
** nStmt statements of the body (all if < 0), a ROLLBACK, and (bAfter)
** one more row into every cuckoo table.  Returns its dump.
*/
static char *reference(const scenario *sc, int nStmt, int bAfter) {
  sqlite3 *db = 0;
  char *zDump = 0;
  if (sqlite3_open(":memory:", &db) == SQLITE_OK &&
      sqlite3_exec(db, sc->zSetup, 0, 0, 0) == SQLITE_OK &&
      exec_first(db, sc->zBody, nStmt) == SQLITE_OK) {
    sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
    if (bAfter) {
      char **az = cuckoo_tables(db);
      insert_after(db, az);
      free_list(az);
    }
    zDump = tl_db_dump(db);
  }
  sqlite3_close(db);
  return zDump;
}

/* References are the same for every N: computed once per scenario. */
#define MAX_STMT 32
static char *azRef[2][MAX_STMT + 2];
static void reference_reset(void) {
  int i, j;
  for (i = 0; i < 2; i++) {
    for (j = 0; j < MAX_STMT + 2; j++) {
      free(azRef[i][j]);
      azRef[i][j] = 0;
    }
  }
}
/* k: statements done, or MAX_STMT + 1 for the complete body. */
static const char *reference_of(const scenario *sc, int k, int bAfter) {
  int i = k > MAX_STMT ? MAX_STMT + 1 : k;
  if (azRef[bAfter][i] == 0) {
    /* kept in malloc() memory: the leak check counts SQLite's */
    char *z = reference(sc, k > MAX_STMT ? -1 : k, bAfter);
    azRef[bAfter][i] = z ? strdup(z) : 0;
    sqlite3_free(z);
  }
  return azRef[bAfter][i] ? azRef[bAfter][i] : "(reference failed)";
}

static int one_value(sqlite3 *db, const char *zSql, char *zOut, int nOut) {
  sqlite3_stmt *s = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &s, 0);
  zOut[0] = 0;
  if (rc == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
    const char *z = (const char *)sqlite3_column_text(s, 0);
    snprintf(zOut, (size_t)nOut, "%s", z ? z : "NULL");
  }
  rc = sqlite3_finalize(s);
  return rc;
}

static int is_oom_error(int rc, const char *zErr) {
  if (rc == SQLITE_NOMEM) return 1;
  return zErr && strstr(zErr, "out of memory") != 0;
}

/* Is zDump the database of the reference run stopped before or after
** statement nDone + 1 (a failed statement takes effect whole or not at
** all)? */
static int same_as_reference(const char *zDump, const scenario *sc, int nDone,
                             int bAfter) {
  return zDump && (strcmp(zDump, reference_of(sc, nDone, bAfter)) == 0 ||
                   strcmp(zDump, reference_of(sc, nDone + 1, bAfter)) == 0);
}

/* cuckoo_check() of every cuckoo table and PRAGMA integrity_check: 1 if
** all say 'ok' (zBad gets the first other answer). */
static int all_ok(sqlite3 *db, char **azTab, char *zBad, int nBad) {
  int i;
  char zGot[256];
  for (i = 0; azTab[i]; i++) {
    char *z = sqlite3_mprintf("SELECT cuckoo_check('%q')", azTab[i]);
    one_value(db, z, zGot, sizeof(zGot));
    sqlite3_free(z);
    if (strcmp(zGot, "ok") != 0) {
      snprintf(zBad, (size_t)nBad, "cuckoo_check('%s'): %s", azTab[i], zGot);
      return 0;
    }
  }
  one_value(db, "PRAGMA integrity_check", zGot, sizeof(zGot));
  if (strcmp(zGot, "ok") != 0) {
    snprintf(zBad, (size_t)nBad, "integrity_check: %s", zGot);
    return 0;
  }
  return 1;
}

static void run_scenario(const scenario *sc) {
  int persistent;
  reference_reset();
  for (persistent = 0; persistent <= 1; persistent++) {
    int n;
    for (n = 1; n < 100000; n++) {
      sqlite3 *db = 0;
      char *zErr = 0, *zDump;
      char zGot[256];
      int rc, injected, nDone = 0;
      sqlite3_int64 before = sqlite3_memory_used();

      rc = sqlite3_open(":memory:", &db);
      if (rc == SQLITE_OK) rc = sqlite3_exec(db, sc->zSetup, 0, 0, &zErr);
      if (rc != SQLITE_OK) {
        check(0, sc->zName, n, persistent, "setup failed", zErr);
        sqlite3_free(zErr);
        sqlite3_close(db);
        return;
      }
      fault_arm(n, persistent);
      rc = exec_counted(db, sc->zBody, &nDone, &zErr);
      injected = g_nfail;
      fault_disarm();
      check(rc == SQLITE_OK || is_oom_error(rc, zErr), sc->zName, n, persistent,
            "unexpected error:", zErr);
      sqlite3_free(zErr);
      zErr = 0;
      if (rc == SQLITE_OK) {
        /* 3: the complete run's database; 4: the expected answer */
        zDump = tl_db_dump(db);
        check(zDump && strcmp(zDump, reference_of(sc, MAX_STMT + 1, 0)) == 0,
              sc->zName, n, persistent,
              "database differs from a run without injection", 0);
        sqlite3_free(zDump);
        one_value(db, sc->zCheck, zGot, sizeof(zGot));
        check(strcmp(zGot, sc->zExpect) == 0, sc->zName, n, persistent,
              "wrong answer after success:", zGot);
      } else {
        char **azTab;
        char zBad[300];
        sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
        /* 3: the state before the failed statement (or after it) */
        zDump = tl_db_dump(db);
        check(same_as_reference(zDump, sc, nDone, 0), sc->zName, n, persistent,
              "database after the failure differs from a run without "
              "injection stopped at the same statement",
              0);
        sqlite3_free(zDump);
        /* 4: sound tables, and the connection keeps working */
        azTab = cuckoo_tables(db);
        check(all_ok(db, azTab, zBad, sizeof(zBad)), sc->zName, n, persistent,
              "damaged after the failure:", zBad);
        rc = one_value(db, "SELECT cuckoo_count(cuckoo_add(cuckoo_new(10), 1))",
                       zGot, sizeof(zGot));
        check(rc == SQLITE_OK && strcmp(zGot, "1") == 0, sc->zName, n,
              persistent, "database unusable after OOM:", zGot);
        if (azTab[0]) {
          insert_after(db, azTab);
          zDump = tl_db_dump(db);
          check(same_as_reference(zDump, sc, nDone, 1), sc->zName, n,
                persistent,
                "a write after the failure gives another database than "
                "without injection",
                0);
          sqlite3_free(zDump);
        }
        free_list(azTab);
      }
      sqlite3_close(db);
      check(sqlite3_memory_used() == before, sc->zName, n, persistent,
            "memory leak", 0);
      if (injected == 0) {
        printf("%-24s %-10s completed at N=%d\n", sc->zName,
               persistent ? "persistent" : "transient", n);
        break;
      }
    }
  }
  reference_reset();
}

#define AGG_SETUP                                                              \
  "CREATE TABLE t(g, x);"                                                      \
  "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < "    \
  "400) INSERT INTO t SELECT i % 4, CASE WHEN i % 4 = 0 THEN i "               \
  "WHEN i % 13 = 0 THEN NULL ELSE (i * 7) % 45 END FROM n;"

static const scenario aScenario[] = {
    {"scalar-functions", "",
     "CREATE TABLE t(f BLOB);"
     "INSERT INTO t VALUES(cuckoo_add(cuckoo_new(500, 0.01), 'a', 2, 3.5, "
     "x'01'));"
     "UPDATE t SET f = cuckoo_remove(f, 2);"
     "UPDATE t SET f = cuckoo_merge(f, cuckoo_add(cuckoo_new(500, 0.01), 'z'));"
     "CREATE TABLE r AS SELECT cuckoo_info(f) AS i, cuckoo_count(f) AS c FROM "
     "t;"
     "CREATE TABLE p AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 "
     "FROM n WHERE i < 200) SELECT sum(cuckoo_contains(t.f, i)) AS s FROM n, "
     "t;",
     "SELECT cuckoo_contains(f, 'a') + cuckoo_contains(f, 'z') + "
     "cuckoo_contains(f, 3.5) + 10 * cuckoo_count(f) FROM t",
     "43"},
    {"vtab-create-write", "",
     "CREATE VIRTUAL TABLE t USING cuckoo(capacity=100, block_size=64);"
     "INSERT INTO t VALUES (1), (2), ('a'), (x'00'), (2.5);"
     "DELETE FROM t WHERE item = 2;"
     "INSERT OR IGNORE INTO t VALUES ('a'), ('b');"
     "UPDATE t SET item = 'c' WHERE item = 'b';",
     "SELECT count(*) FROM t WHERE item IN (1, 2, 'a', 'b', 'c', x'00', 2.5)",
     "5"},
    {"vtab-transactions",
     "CREATE VIRTUAL TABLE t USING cuckoo(capacity=100, block_size=64);"
     "INSERT INTO t VALUES ('base');",
     "BEGIN;"
     "INSERT INTO t VALUES ('k1');"
     "SAVEPOINT s;"
     "INSERT INTO t VALUES ('k2');"
     "ROLLBACK TO s;"
     "RELEASE s;"
     "DELETE FROM t WHERE item = 'base';"
     "COMMIT;"
     "BEGIN;"
     "INSERT INTO t VALUES ('k3');"
     "ROLLBACK;",
     "SELECT group_concat(item) FROM t WHERE item IN ('base', 'k1', 'k2', "
     "'k3')",
     "k1"},
    {"vtab-grow-export-import",
     "CREATE VIRTUAL TABLE t USING cuckoo(capacity=20, block_size=64,"
     " cache_size=1);",
     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<70)"
     " INSERT INTO t SELECT i FROM n;"
     "CREATE VIRTUAL TABLE u USING cuckoo(capacity=10);"
     "INSERT INTO u(filter) SELECT cuckoo_export('main', 't', level)"
     " FROM t_levels ORDER BY level;"
     "CREATE TABLE r AS SELECT cuckoo_check('t') AS c1, cuckoo_check('u') AS "
     "c2,"
     " cuckoo_table_info('u') AS i;",
     "SELECT (SELECT c1 || c2 FROM r) || (WITH RECURSIVE n(i) AS (SELECT 1 "
     "UNION"
     " ALL SELECT i+1 FROM n WHERE i<70) SELECT count(*) FROM n JOIN u"
     " ON u.item = n.i)",
     "okok70"},
    /* A block cache of one KiB: blocks are flushed (written to the shadow
    ** table) and evicted in the middle of the transaction. */
    {"vtab-evict-delete-commit",
     "CREATE VIRTUAL TABLE t USING cuckoo(capacity=150, block_size=64,"
     " cache_size=1);"
     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE "
     "i<120) INSERT INTO t SELECT i FROM n;",
     "BEGIN;"
     "WITH RECURSIVE n(i) AS (SELECT 121 UNION ALL SELECT i+1 FROM n WHERE "
     "i<220) INSERT INTO t SELECT i FROM n;"
     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE "
     "i<40) DELETE FROM t WHERE item IN (SELECT i FROM n);"
     "SAVEPOINT s;"
     "INSERT INTO t VALUES ('gone');"
     "ROLLBACK TO s;"
     "COMMIT;"
     "DELETE FROM t WHERE item = 50;",
     "SELECT (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n "
     "WHERE i<220) SELECT count(*) FROM n JOIN t ON t.item = n.i) || '/' || "
     "cuckoo_check('t') || '/' || (SELECT count(*) FROM t WHERE item = "
     "'gone')",
     "179/ok/0"},
    /* Scans (rows are stored fingerprints; rowids pinned on a grown
    ** table), a counting scan, deleting scan rows, and emptying. */
    {"vtab-scan-empty",
     "CREATE VIRTUAL TABLE t USING cuckoo(capacity=20, block_size=64,"
     " cache_size=1);"
     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<70)"
     " INSERT INTO t SELECT i FROM n;",
     "CREATE TABLE r AS SELECT count(*) AS c, sum(copies) AS s,"
     " count(DISTINCT rowid) AS d, count(level) AS l FROM t;"
     "CREATE TABLE q AS SELECT count(*) AS c FROM t;"
     "DELETE FROM t WHERE level = 0;"
     "BEGIN;"
     "DELETE FROM t;"
     "ROLLBACK;"
     "INSERT INTO t(t) VALUES('delete-all');"
     "INSERT INTO t VALUES ('x');",
     "SELECT (SELECT c || '/' || d || '/' || l FROM r) || '/' ||"
     " (SELECT c FROM q) || '/' || (SELECT count(*) FROM t) || '/' ||"
     " cuckoo_check('t') || '/' || (SELECT count(*) FROM t WHERE item = 'x')",
     "70/70/70/70/1/ok/1"},
    {"utf16-text-items", "PRAGMA encoding='UTF-16le';",
     "CREATE TABLE t(f BLOB);"
     "INSERT INTO t VALUES(cuckoo_add(cuckoo_new(50), 'héllo', 'wörld'));",
     "SELECT cuckoo_contains(f, 'héllo') + cuckoo_contains(f, 'wörld') FROM t",
     "2"},
    /* Aggregates: 4 groups of 100 rows; group 0 has 100 distinct items,
    ** the others 45 values repeated (compaction with copy counts), NULLs. */
    {"agg-exact-groupby", AGG_SETUP,
     "CREATE TABLE f AS SELECT g, cuckoo_agg(x) AS f FROM t GROUP BY g;",
     "SELECT sum(cuckoo_count(f)) || '/' || sum(cuckoo_contains(f, 8)) FROM f",
     "235/4"},
    {"agg-fixed-union", AGG_SETUP,
     "CREATE TABLE s AS SELECT g, cuckoo_agg(x, 0.01, 300, 'semisort') AS f "
     "FROM t GROUP BY g;"
     "CREATE TABLE u AS SELECT cuckoo_union(f) AS f FROM s;",
     "SELECT cuckoo_count(f) || '/' || cuckoo_contains(f, 400) FROM u",
     "134/1"},
    {"agg-window", AGG_SETUP,
     "CREATE TABLE w AS SELECT "
     "cuckoo_count(cuckoo_agg(x) OVER (ORDER BY rowid ROWS 100 PRECEDING)) AS"
     " c, cuckoo_count(cuckoo_agg(x, 0.01, 200) OVER (ORDER BY rowid ROWS 20 "
     "PRECEDING)) AS d FROM t WHERE rowid <= 240;",
     "SELECT sum(c) || '/' || sum(d) FROM w", "12756/4488"},
    /* cuckoo_contains_stored: direct probes, then the whole BLOB (the big
    ** filter, about 5 KB), and a rowid that changes per row. */
    {"stored-probe",
     "CREATE TABLE fl(name TEXT PRIMARY KEY, f BLOB);"
     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < "
     "3000) INSERT INTO fl SELECT 'big', cuckoo_agg(i) FROM n;"
     "INSERT INTO fl VALUES ('small', cuckoo_add(cuckoo_new(10), 'a'));",
     "CREATE TABLE p AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT "
     "i+1 FROM n WHERE i < 400) SELECT sum(cuckoo_contains_stored('fl', 'f', "
     "(SELECT rowid FROM fl WHERE name = 'big'), i)) AS s FROM n;"
     "CREATE TABLE q AS SELECT fl.name, cuckoo_contains_stored('main', 'fl', "
     "'f', fl.rowid, 'a') AS a FROM fl ORDER BY fl.name;",
     "SELECT (SELECT s FROM p) || '/' || (SELECT group_concat(a) FROM q)",
     "400/0,1"},
};

int main(void) {
  sqlite3_mem_methods m;
  size_t i;
  tl_zProgram = "fault_test";
  sqlite3_shutdown();
  sqlite3_config(SQLITE_CONFIG_GETMALLOC, &g_orig);
  m = g_orig;
  m.xMalloc = fault_malloc;
  m.xRealloc = fault_realloc;
  m.xFree = fault_free;
  m.xSize = fault_size;
  m.xRoundup = fault_roundup;
  m.xInit = fault_init;
  m.xShutdown = fault_shutdown;
  sqlite3_config(SQLITE_CONFIG_MALLOC, &m);
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1);
  sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0);
  sqlite3_initialize();
  sqlite3_auto_extension((void (*)(void))sqlite3_cuckoo_init);

  for (i = 0; i < sizeof(aScenario) / sizeof(aScenario[0]); i++) {
    run_scenario(&aScenario[i]);
  }
  return tl_report("fault_test");
}
