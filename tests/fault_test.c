/*
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
**   3. leave working filters: with injection off, the scenario's check
**      query must return its expected answer.
** The last line is "fault_test: N passed, N failed".
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sqlite3_cuckoo_init(sqlite3 *db, char **pzErr, const void *pApi);

static sqlite3_mem_methods g_orig;
static int g_countdown = 0;  /* fail when it reaches 0 after decrement */
static int g_persistent = 0;
static int g_failing = 0;    /* persistent mode: failing from now on */
static int g_nfail = 0;      /* allocations failed in this run */

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

static int nPass = 0, nFail = 0;
static void check(int ok, const char *zScenario, int n, int persistent,
                  const char *zWhat, const char *zDetail) {
  if (ok) {
    nPass++;
  } else {
    nFail++;
    printf("! %s N=%d %s: %s %s\n", zScenario, n,
           persistent ? "persistent" : "transient", zWhat,
           zDetail ? zDetail : "");
  }
}

typedef struct scenario {
  const char *zName;
  const char *zSetup;  /* run without injection */
  const char *zBody;   /* run with injection (statements, in order) */
  const char *zCheck;  /* query without injection: expected single value */
  const char *zExpect; /* expected text of zCheck's first column */
  /* After a failed body (optional): statements whose errors are ignored
  ** (e.g. ROLLBACK), then a query that must give zFailExpect: what the
  ** body could not have undone, such as items committed in zSetup. */
  const char *zFailReset;
  const char *zFailCheck;
  const char *zFailExpect;
} scenario;

/* Run zSql statement by statement; returns the first error code. */
static int exec_all(sqlite3 *db, const char *zSql, char **pzErr) {
  return sqlite3_exec(db, zSql, 0, 0, pzErr);
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

static void run_scenario(const scenario *sc) {
  int persistent;
  for (persistent = 0; persistent <= 1; persistent++) {
    int n;
    for (n = 1; n < 100000; n++) {
      sqlite3 *db = 0;
      char *zErr = 0;
      char zGot[256];
      int rc, injected;
      sqlite3_int64 before = sqlite3_memory_used();

      rc = sqlite3_open(":memory:", &db);
      if (rc == SQLITE_OK) rc = exec_all(db, sc->zSetup, &zErr);
      if (rc != SQLITE_OK) {
        check(0, sc->zName, n, persistent, "setup failed", zErr);
        sqlite3_free(zErr);
        sqlite3_close(db);
        return;
      }
      fault_arm(n, persistent);
      rc = exec_all(db, sc->zBody, &zErr);
      injected = g_nfail;
      fault_disarm();
      check(rc == SQLITE_OK || is_oom_error(rc, zErr), sc->zName, n,
            persistent, "unexpected error:", zErr);
      sqlite3_free(zErr);
      zErr = 0;
      /* The database must still work, and if the body completed the
      ** check query must give the expected answer. */
      if (rc == SQLITE_OK) {
        one_value(db, sc->zCheck, zGot, sizeof(zGot));
        check(strcmp(zGot, sc->zExpect) == 0, sc->zName, n, persistent,
              "wrong answer after success:", zGot);
      } else {
        rc = one_value(db, "SELECT cuckoo_count(cuckoo_add(cuckoo_new(10), 1))",
                       zGot, sizeof(zGot));
        check(rc == SQLITE_OK && strcmp(zGot, "1") == 0, sc->zName, n,
              persistent, "database unusable after OOM:", zGot);
        if (sc->zFailCheck) {
          if (sc->zFailReset) sqlite3_exec(db, sc->zFailReset, 0, 0, 0);
          rc = one_value(db, sc->zFailCheck, zGot, sizeof(zGot));
          check(rc == SQLITE_OK && strcmp(zGot, sc->zFailExpect) == 0,
                sc->zName, n, persistent, "wrong state after OOM:", zGot);
        }
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
}

#define AGG_SETUP                                                              \
  "CREATE TABLE t(g, x);"                                                      \
  "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < "    \
  "400) INSERT INTO t SELECT i % 4, CASE WHEN i % 4 = 0 THEN i "               \
  "WHEN i % 13 = 0 THEN NULL ELSE (i * 7) % 45 END FROM n;"

static const scenario aScenario[] = {
    {"scalar-functions", "",
     "CREATE TABLE t(f BLOB);"
     "INSERT INTO t VALUES(cuckoo_add(cuckoo_new(500, 0.01), 'a', 2, 3.5, x'01'));"
     "UPDATE t SET f = cuckoo_remove(f, 2);"
     "UPDATE t SET f = cuckoo_merge(f, cuckoo_add(cuckoo_new(500, 0.01), 'z'));"
     "CREATE TABLE r AS SELECT cuckoo_info(f) AS i, cuckoo_count(f) AS c FROM t;"
     "CREATE TABLE p AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 "
     "FROM n WHERE i < 200) SELECT sum(cuckoo_contains(t.f, i)) AS s FROM n, t;",
     "SELECT cuckoo_contains(f, 'a') + cuckoo_contains(f, 'z') + "
     "cuckoo_contains(f, 3.5) + 10 * cuckoo_count(f) FROM t",
     "43", 0, 0, 0},
    {"vtab-create-write", "",
     "CREATE VIRTUAL TABLE t USING cuckoo(capacity=100, block_size=64);"
     "INSERT INTO t VALUES (1), (2), ('a'), (x'00'), (2.5);"
     "DELETE FROM t WHERE item = 2;"
     "INSERT OR IGNORE INTO t VALUES ('a'), ('b');"
     "UPDATE t SET item = 'c' WHERE item = 'b';",
     "SELECT count(*) FROM t WHERE item IN (1, 2, 'a', 'b', 'c', x'00', 2.5)",
     "5", 0, 0, 0},
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
     "SELECT group_concat(item) FROM t WHERE item IN ('base', 'k1', 'k2', 'k3')",
     "k1", "ROLLBACK",
     "SELECT count(*) FROM t WHERE item = 'base' OR item = 'k1'", "1"},
    {"vtab-grow-export-import",
     "CREATE VIRTUAL TABLE t USING cuckoo(capacity=20, block_size=64,"
     " cache_size=1);",
     "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<70)"
     " INSERT INTO t SELECT i FROM n;"
     "CREATE VIRTUAL TABLE u USING cuckoo(capacity=10);"
     "INSERT INTO u(filter) SELECT cuckoo_export('main', 't', level)"
     " FROM t_levels ORDER BY level;"
     "CREATE TABLE r AS SELECT cuckoo_check('t') AS c1, cuckoo_check('u') AS c2,"
     " cuckoo_table_info('u') AS i;",
     "SELECT (SELECT c1 || c2 FROM r) || (WITH RECURSIVE n(i) AS (SELECT 1 UNION"
     " ALL SELECT i+1 FROM n WHERE i<70) SELECT count(*) FROM n JOIN u"
     " ON u.item = n.i)",
     "okok70", 0, 0, 0},
    {"utf16-text-items", "PRAGMA encoding='UTF-16le';",
     "CREATE TABLE t(f BLOB);"
     "INSERT INTO t VALUES(cuckoo_add(cuckoo_new(50), 'héllo', 'wörld'));",
     "SELECT cuckoo_contains(f, 'héllo') + cuckoo_contains(f, 'wörld') FROM t",
     "2", 0, 0, 0},
    /* Aggregates: 4 groups of 100 rows; group 0 has 100 distinct items,
    ** the others 45 values repeated (compaction with copy counts), NULLs. */
    {"agg-exact-groupby", AGG_SETUP,
     "CREATE TABLE f AS SELECT g, cuckoo_agg(x) AS f FROM t GROUP BY g;",
     "SELECT sum(cuckoo_count(f)) || '/' || sum(cuckoo_contains(f, 8)) FROM f",
     "235/4", 0, 0, 0},
    {"agg-fixed-union", AGG_SETUP,
     "CREATE TABLE s AS SELECT g, cuckoo_agg(x, 0.01, 300, 'semisort') AS f "
     "FROM t GROUP BY g;"
     "CREATE TABLE u AS SELECT cuckoo_union(f) AS f FROM s;",
     "SELECT cuckoo_count(f) || '/' || cuckoo_contains(f, 400) FROM u",
     "134/1", 0, 0, 0},
    {"agg-window", AGG_SETUP,
     "CREATE TABLE w AS SELECT "
     "cuckoo_count(cuckoo_agg(x) OVER (ORDER BY rowid ROWS 100 PRECEDING)) AS"
     " c, cuckoo_count(cuckoo_agg(x, 0.01, 200) OVER (ORDER BY rowid ROWS 20 "
     "PRECEDING)) AS d FROM t WHERE rowid <= 240;",
     "SELECT sum(c) || '/' || sum(d) FROM w", "12756/4488", 0, 0, 0},
};

int main(void) {
  sqlite3_mem_methods m;
  size_t i;
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
  printf("fault_test: %d passed, %d failed\n", nPass, nFail);
  return nFail ? 1 : 0;
}
