/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** crash_test.c: kill -9 a writer of a cuckoo virtual table at random
** points, many times, and check what survives.  SQLite and the extension
** are linked statically (-DSQLITE_CORE).
**
**   build/crash_test [--kills N] [--seed S] [--dir DIR] [--verbose]
**
** N rounds (default 16; 8 with CUCKOO_SANITIZED=1), alternating between a
** database in rollback-journal mode and one in WAL mode.  In each round
** the test forks a writer process that commits large transactions
** ("batches") to table t, and kills it with SIGKILL:
**   - by the clock: the parent kills it after a random 5 to 200 ms; or
**   - at an I/O call: the writer runs on a VFS shim that counts the
**     xWrite, xSync, xTruncate and xDelete calls and SIGKILLs its own
**     process at a random one, so kills land inside commits (journal
**     written, database half written, WAL frames half appended) as often
**     as anywhere else; or
**   - in a merge: the same, but the count starts when a batch's 'merge'
**     command starts (every fourth batch ends with one before its COMMIT)
**     and the kill comes 1 to 40 I/O calls later, so it lands while the
**     merged blocks are written and committed (docs/format.md#the-log).
**
** Batch k (one transaction): inserts B items (every tenth twice: a
** multiset), deletes one copy of every fourth item of batch k-2, inserts
** and rolls back (ROLLBACK TO a savepoint) 100 "junk" items, and records
** k, the table's count and its number of levels in the ordinary table
** progress, all in the same transaction.  The table starts at capacity
** 300 with small blocks and a 64 KiB block cache, so batches grow it by
** new levels, and the block cache and SQLite's page cache (256 KiB) spill
** to the database file or WAL in the middle of transactions.
**
** After every kill the parent reopens the database (recovering the hot
** journal or the WAL) and checks:
**   1. PRAGMA integrity_check is 'ok' and cuckoo_check('t') is 'ok';
**   2. K = max(k) of progress is the last committed batch: the table's
**      count equals the count batch K recorded (so the interrupted batch
**      left nothing, or was committed whole and recorded itself);
**   3. every item with copies left after batches 1..K is found (deletes
**      of the interrupted batch K+1 undone included);
**   4. the items of the interrupted batch K+1 and every junk item are
**      absent, false positives aside (at most a few: error_rate 1e-4).
** A new writer then continues from batch K+1.  Every 8 rounds per mode
** the database starts afresh, so most batches grow the table.
**
** The last line is "crash_test: N passed, N failed" (one per check).
*/
#include <sqlite3.h>

#include "testlib.h"
#include "vfsshim.h"
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int sqlite3_cuckoo_init(sqlite3 *db, char **pzErr, const void *pApi);

static int bVerbose = 0;
/* One check of round iRound (zGot: what was found instead, or NULL). */
static void check(int ok, int iRound, const char *zWhat, const char *zGot) {
  tl_check(ok, "round %d: %s%s%s", iRound, zWhat, zGot ? ": " : "",
           zGot ? zGot : "");
}

static uint64_t g_rng;
static uint64_t rnd(void) {
  uint64_t z = (g_rng += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* ---------------------------------------------------------------------
** The VFS shim (tests/vfsshim.h) kills the process at the Nth I/O call.
*/
static long g_nIo = 0;     /* I/O calls so far */
static long g_nKillAt = 0; /* 0: never */

static int crash_io(int eOp) {
  (void)eOp;
  if (g_nKillAt && ++g_nIo >= g_nKillAt) kill(getpid(), SIGKILL);
  return 0;
}

/* ---------------------------------------------------------------------
** Items of batch k
*/
static int g_nBatch = 5000; /* items per batch (B) */
#define N_JUNK 100

/* Items of batch k: B, but every third batch is small (B/50), a commit
** that a format-3 table writes as a log row (docs/format.md#the-log), so
** kills land in logged commits and in merges as well as in growth. */
static int64_t batch_size(int64_t k) {
  return k % 3 == 0 ? g_nBatch / 50 : g_nBatch;
}

/* Batch k ends with the 'merge' command before its COMMIT (every fourth
** batch), so that kills also land while a merge's blocks are written and
** committed; the writer tells the parent (status_says) when it starts it. */
static int merges(int64_t k) { return k % 4 == 2; }

static void bind_item(sqlite3_stmt *s, int iParam, int64_t k, int64_t i) {
  int64_t v = k * 10000000 + i;
  char z[48];
  switch (i % 3) {
  case 0: sqlite3_bind_int64(s, iParam, v); break;
  case 1:
    snprintf(z, sizeof(z), "b%lld_%lld", (long long)k, (long long)i);
    sqlite3_bind_text(s, iParam, z, -1, SQLITE_TRANSIENT);
    break;
  default: sqlite3_bind_double(s, iParam, (double)v + 0.5); break;
  }
}
static void bind_junk(sqlite3_stmt *s, int iParam, int64_t k, int64_t i) {
  char z[48];
  snprintf(z, sizeof(z), "junk%lld_%lld", (long long)k, (long long)i);
  sqlite3_bind_text(s, iParam, z, -1, SQLITE_TRANSIENT);
}
/* Copies of item i of batch k left after batches 1..K. */
static int copies_after(int64_t k, int64_t i, int64_t K) {
  int n;
  if (k > K) return 0;
  n = i % 10 == 0 ? 2 : 1;
  if (i % 4 == 0 && k + 2 <= K) n--;
  return n;
}

/* ---------------------------------------------------------------------
** The writer (child process): commits batches until killed.
*/
static void die(sqlite3 *db, const char *zWhat) {
  fprintf(stderr, "crash_test writer: %s: %s\n", zWhat,
          db ? sqlite3_errmsg(db) : "");
  _exit(3);
}
static void wexec(sqlite3 *db, const char *zSql) {
  if (sqlite3_exec(db, zSql, 0, 0, 0) != SQLITE_OK) die(db, zSql);
}

static void writer(const char *zFile, int bWal, long nKillAt,
                   long nMergeKill, const char *zStatus) {
  sqlite3 *db = 0;
  sqlite3_stmt *sIns, *sDel, *sJunk, *sProg, *sK, *sLevels;
  int fdStatus = open(zStatus, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int64_t nLevels = 0;
  int64_t k, i, K = 0;
  int nDone;
  g_nKillAt = nKillAt;
  g_nIo = 0;
  if (sqlite3_open_v2(zFile, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                      "crashshim") != SQLITE_OK) {
    die(db, "open");
  }
  wexec(db, bWal ? "PRAGMA journal_mode=WAL" : "PRAGMA journal_mode=DELETE");
  wexec(db, "PRAGMA cache_size=-256");
  wexec(db, "CREATE TABLE IF NOT EXISTS progress(k INTEGER PRIMARY KEY, "
            "count INTEGER, levels INTEGER);"
            "CREATE VIRTUAL TABLE IF NOT EXISTS t USING cuckoo("
            "capacity=300, error_rate=0.0001, block_size=200, "
            "cache_size=64)");
  if (sqlite3_prepare_v2(db, "SELECT coalesce(max(k), 0) FROM progress", -1,
                         &sK, 0) != SQLITE_OK ||
      sqlite3_step(sK) != SQLITE_ROW) {
    die(db, "progress");
  }
  K = sqlite3_column_int64(sK, 0);
  sqlite3_finalize(sK);
  if (sqlite3_prepare_v2(db, "INSERT INTO t(item) VALUES(?1)", -1, &sIns, 0) ||
      sqlite3_prepare_v2(db, "DELETE FROM t WHERE item = ?1", -1, &sDel, 0) ||
      sqlite3_prepare_v2(db, "INSERT INTO t(item) VALUES(?1)", -1, &sJunk, 0) ||
      sqlite3_prepare_v2(db,
                         "INSERT INTO progress SELECT ?1, "
                         "json_extract(cuckoo_table_info('t'), '$.count'), "
                         "json_extract(cuckoo_table_info('t'), '$.levels')",
                         -1, &sProg, 0) ||
      sqlite3_prepare_v2(
          db, "SELECT json_extract(cuckoo_table_info('t'), '$.levels')", -1,
          &sLevels, 0)) {
    die(db, "prepare");
  }
  for (nDone = 0, k = K + 1; nDone < 60; k++, nDone++) {
    wexec(db, "BEGIN");
    for (i = 0; i < batch_size(k); i++) {
      int c;
      for (c = i % 10 == 0 ? 2 : 1; c > 0; c--) {
        bind_item(sIns, 1, k, i);
        if (sqlite3_step(sIns) != SQLITE_DONE) die(db, "insert");
        sqlite3_reset(sIns);
      }
      if (i % 250 == 0) {
        /* a new level in this (uncommitted) batch: tell the parent */
        int64_t n = sqlite3_step(sLevels) == SQLITE_ROW
                        ? sqlite3_column_int64(sLevels, 0)
                        : 0;
        sqlite3_reset(sLevels);
        if (nLevels && n > nLevels && fdStatus >= 0) {
          char z[64];
          int len = snprintf(z, sizeof(z), "grew %lld\n", (long long)k);
          if (write(fdStatus, z, (size_t)len) != len) die(0, "status");
        }
        nLevels = n;
      }
      if (i == batch_size(k) / 2) {
        /* half way: junk inserted and rolled back to a savepoint */
        int64_t j;
        wexec(db, "SAVEPOINT junk");
        for (j = 0; j < N_JUNK; j++) {
          bind_junk(sJunk, 1, k, j);
          if (sqlite3_step(sJunk) != SQLITE_DONE) die(db, "junk");
          sqlite3_reset(sJunk);
        }
        wexec(db, "ROLLBACK TO junk; RELEASE junk");
      }
    }
    if (k > 2) {
      for (i = 0; i < batch_size(k - 2); i += 4) {
        bind_item(sDel, 1, k - 2, i);
        if (sqlite3_step(sDel) != SQLITE_DONE) die(db, "delete");
        sqlite3_reset(sDel);
      }
    }
    sqlite3_bind_int64(sProg, 1, k);
    if (sqlite3_step(sProg) != SQLITE_DONE) die(db, "progress");
    sqlite3_reset(sProg);
    if (merges(k)) {
      char z[64];
      int len = snprintf(z, sizeof(z), "merge %lld\n", (long long)k);
      if (fdStatus >= 0 && write(fdStatus, z, (size_t)len) != len) {
        die(0, "status");
      }
      if (nMergeKill) g_nKillAt = g_nIo + nMergeKill; /* kill in the merge */
      wexec(db, "INSERT INTO t(t) VALUES('merge')");
    }
    wexec(db, "COMMIT");
  }
  /* not killed: end cleanly (the parent checks this state too) */
  sqlite3_finalize(sIns);
  sqlite3_finalize(sDel);
  sqlite3_finalize(sJunk);
  sqlite3_finalize(sProg);
  sqlite3_finalize(sLevels);
  sqlite3_close(db);
  _exit(0);
}

/* ---------------------------------------------------------------------
** The parent: kill, reopen, verify
*/
typedef struct dbstate {
  char zFile[600];
  int bWal;
  int nRounds; /* rounds since the database was created */
} dbstate;

static int64_t g_nGrowKills = 0, g_nKillsTotal = 0, g_nClean = 0,
               g_nIoKills = 0, g_nTimeKills = 0, g_nMergeKills = 0;
/* recoveries whose table had log rows to replay (format 3) */
static int64_t g_nLogged;

static void fresh(dbstate *d) {
  char z[700];
  const char *azSuffix[] = {"", "-journal", "-wal", "-shm"};
  int i;
  for (i = 0; i < 4; i++) {
    snprintf(z, sizeof(z), "%s%s", d->zFile, azSuffix[i]);
    unlink(z);
  }
  d->nRounds = 0;
}

/* Did the writer report zWhat ("grew": a new level; "merge": the merge
** command started) in (uncommitted) batch k? */
static int status_says(const char *zStatus, const char *zWhat, int64_t k) {
  FILE *f = fopen(zStatus, "r");
  char zLine[64], zWord[16];
  long long v;
  int r = 0;
  if (f == 0) return 0;
  while (fgets(zLine, sizeof(zLine), f)) {
    if (sscanf(zLine, "%15s %lld", zWord, &v) == 2 &&
        strcmp(zWord, zWhat) == 0 && v == k) {
      r = 1;
    }
  }
  fclose(f);
  return r;
}

/* Checks that the first row of zSql is the text 'ok'. */
static void check_says_ok(sqlite3 *db, const char *zSql, int iRound,
                          const char *zWhat) {
  sqlite3_stmt *s = 0;
  if (sqlite3_prepare_v2(db, zSql, -1, &s, 0) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW) {
    const char *z = (const char *)sqlite3_column_text(s, 0);
    check(z && strcmp(z, "ok") == 0, iRound, zWhat, z);
  } else {
    check(0, iRound, zWhat, sqlite3_errmsg(db));
  }
  sqlite3_finalize(s);
}

static int64_t one_int(sqlite3 *db, const char *zSql, int *pOk) {
  sqlite3_stmt *s = 0;
  int64_t v = -1;
  *pOk = 0;
  if (sqlite3_prepare_v2(db, zSql, -1, &s, 0) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW) {
    v = sqlite3_column_int64(s, 0);
    *pOk = 1;
  }
  sqlite3_finalize(s);
  return v;
}

static int64_t verify(dbstate *d, int iRound) {
  sqlite3 *db = 0;
  sqlite3_stmt *s = 0;
  char zMsg[200];
  int64_t K, nCount, nRec, k, i, nMissing = 0, nGhost = 0, nJunk = 0;
  int ok;

  if (sqlite3_open(d->zFile, &db) != SQLITE_OK) {
    check(0, iRound, "reopen", sqlite3_errmsg(db));
    sqlite3_close(db);
    return 0;
  }
  /* 1. integrity */
  check_says_ok(db, "PRAGMA integrity_check", iRound, "integrity_check");
  if (one_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 't'", &ok) !=
      1) {
    /* killed before the first commit created the table */
    check(ok, iRound, "schema readable", sqlite3_errmsg(db));
    sqlite3_close(db);
    return 0;
  }
  check_says_ok(db, "SELECT cuckoo_check('t')", iRound, "cuckoo_check");
  if (one_int(db, "SELECT count(*) FROM t_log", &ok) > 0) g_nLogged++;

  /* 2. the count is the last committed batch's */
  K = one_int(db, "SELECT coalesce(max(k), 0) FROM progress", &ok);
  nRec = K ? one_int(db,
                     "SELECT count FROM progress WHERE k = (SELECT "
                     "max(k) FROM progress)",
                     &ok)
           : 0;
  nCount = one_int(db, "SELECT json_extract(cuckoo_table_info('t'), '$.count')",
                   &ok);
  snprintf(zMsg, sizeof(zMsg), "table count %lld, batch %lld recorded %lld",
           (long long)nCount, (long long)K, (long long)nRec);
  check(nCount == nRec, iRound, "count of the last committed batch", zMsg);

  /* a level added by the lost batch is gone with it */
  {
    int64_t nLv = one_int(
        db, "SELECT json_extract(cuckoo_table_info('t'), '$.levels')", &ok);
    int64_t nRecLv =
        K ? one_int(db,
                    "SELECT levels FROM progress WHERE k = (SELECT max(k) "
                    "FROM progress)",
                    &ok)
          : 1;
    snprintf(zMsg, sizeof(zMsg),
             "table has %lld levels, batch %lld recorded "
             "%lld",
             (long long)nLv, (long long)K, (long long)nRecLv);
    check(nLv == nRecLv, iRound, "levels of the last committed batch", zMsg);
  }

  /* 3, 4: items */
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM t WHERE item = ?1", -1, &s,
                         0) != SQLITE_OK) {
    check(0, iRound, "prepare lookup", sqlite3_errmsg(db));
    sqlite3_close(db);
    return K;
  }
  for (k = 1; k <= K + 1; k++) {
    for (i = 0; i < batch_size(k); i++) {
      int want = copies_after(k, i, K), got;
      if (want == 0 && k <= K) continue; /* deleted: may be left over */
      bind_item(s, 1, k, i);
      got = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : -1;
      sqlite3_reset(s);
      if (want > 0 && got != 1) nMissing++;
      if (k == K + 1 && got != 0) nGhost++;
    }
    for (i = 0; i < N_JUNK; i++) {
      bind_junk(s, 1, k, i);
      nJunk += sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0) != 0;
      sqlite3_reset(s);
    }
  }
  sqlite3_finalize(s);
  snprintf(zMsg, sizeof(zMsg), "%lld committed items not found",
           (long long)nMissing);
  check(nMissing == 0, iRound, "committed items present", zMsg);
  /* error_rate 1e-4: about 2 false positives among 20000 absent items */
  snprintf(zMsg, sizeof(zMsg), "%lld items of the lost batch %lld found",
           (long long)nGhost, (long long)K + 1);
  check(nGhost <= 12, iRound, "interrupted batch absent", zMsg);
  snprintf(zMsg, sizeof(zMsg), "%lld rolled-back junk items found",
           (long long)nJunk);
  check(nJunk <= 3, iRound, "rolled-back savepoint absent", zMsg);
  if (bVerbose) {
    printf(
        "  round %d (%s): committed batches %lld, count %lld, levels "
        "%lld, ghosts %lld\n",
        iRound, d->bWal ? "wal" : "delete", (long long)K, (long long)nCount,
        (long long)one_int(
            db, "SELECT json_extract(cuckoo_table_info('t'), '$.levels')", &ok),
        (long long)nGhost);
  }
  sqlite3_close(db);
  return K;
}

int main(int argc, char **argv) {
  int nKills = 16, a, iRound;
  const char *zDir = "build/crash";
  const char *zSan = getenv("CUCKOO_SANITIZED");
  uint64_t seed = 1;
  dbstate aDb[2];
  char zStatus[700];
  struct timespec t0, t1;
  tl_zProgram = "crash_test";

  if (zSan && atoi(zSan)) {
    nKills = 8;
    g_nBatch = 2000;
  }
  for (a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--kills") == 0 && a + 1 < argc) {
      nKills = atoi(argv[++a]);
    } else if (strcmp(argv[a], "--seed") == 0 && a + 1 < argc) {
      seed = strtoull(argv[++a], 0, 10);
    } else if (strcmp(argv[a], "--dir") == 0 && a + 1 < argc) {
      zDir = argv[++a];
    } else if (strcmp(argv[a], "--verbose") == 0) {
      bVerbose = 1;
    } else {
      fprintf(stderr,
              "usage: %s [--kills N] [--seed S] [--dir DIR] "
              "[--verbose]\n",
              argv[0]);
      return 2;
    }
  }
  {
    char zCmd[700];
    snprintf(zCmd, sizeof(zCmd), "mkdir -p '%s'", zDir);
    if (system(zCmd) != 0) return 2;
  }
  g_rng = seed * 0x2545F4914F6CDD1DULL + 99;
  snprintf(zStatus, sizeof(zStatus), "%s/crash-status", zDir);
  sqlite3_auto_extension((void (*)(void))sqlite3_cuckoo_init);
  shim_register("crashshim");
  shim_io = crash_io;
  for (a = 0; a < 2; a++) {
    snprintf(aDb[a].zFile, sizeof(aDb[a].zFile), "%s/crash-%s.db", zDir,
             a ? "wal" : "delete");
    aDb[a].bWal = a;
    fresh(&aDb[a]);
  }
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (iRound = 1; iRound <= nKills; iRound++) {
    dbstate *d = &aDb[iRound % 2];
    int eMode = (iRound / 2) % 3, status = 0; /* clock, I/O, merge */
    int bIo = eMode != 0;
    long nKillAt = 0, nMergeKill = 0;
    pid_t pid;
    if (d->nRounds == 2) fresh(d);
    d->nRounds++;
    if (eMode == 1) {
      nKillAt = 1 + (long)(rnd() % (zSan && atoi(zSan) ? 800 : 2000));
    } else if (eMode == 2) {
      nMergeKill = 1 + (long)(rnd() % 40);
    }
    fflush(stdout);
    pid = fork();
    if (pid < 0) {
      perror("fork");
      return 2;
    }
    if (pid == 0) writer(d->zFile, d->bWal, nKillAt, nMergeKill, zStatus);
    if (!bIo) {
      struct timespec ts;
      long ms = 5 + (long)(rnd() % 196);
      ts.tv_sec = ms / 1000;
      ts.tv_nsec = (ms % 1000) * 1000000L;
      nanosleep(&ts, 0);
      kill(pid, SIGKILL);
    }
    if (waitpid(pid, &status, 0) != pid) {
      perror("waitpid");
      return 2;
    }
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
      int64_t K = verify(d, iRound);
      g_nKillsTotal++;
      if (bIo)
        g_nIoKills++;
      else
        g_nTimeKills++;
      if (status_says(zStatus, "grew", K + 1)) g_nGrowKills++;
      if (status_says(zStatus, "merge", K + 1)) g_nMergeKills++;
    } else {
      check(WIFEXITED(status) && WEXITSTATUS(status) == 0, iRound,
            "writer ended cleanly", "exit status not 0");
      g_nClean++;
      verify(d, iRound);
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("crash_test: %d rounds in %.1f s: %lld writers killed with SIGKILL "
         "(%lld at an I/O call, %lld by the clock; %lld in a batch "
         "that grew the table, %lld in a merge), %lld ran to their end; "
         "batches of %d items (every third of %d); %lld recoveries replayed "
         "a log\n",
         nKills,
         (double)(t1.tv_sec - t0.tv_sec) +
             1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
         (long long)g_nKillsTotal, (long long)g_nIoKills,
         (long long)g_nTimeKills, (long long)g_nGrowKills,
         (long long)g_nMergeKills, (long long)g_nClean, g_nBatch,
         g_nBatch / 50, (long long)g_nLogged);
  return tl_report("crash_test");
}
