/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** write_bench.c: the write shapes applications use, each through the loadable
** extension (./cuckoo.so, or $CUCKOO_EXT, loaded with
** sqlite3_load_extension() as users load it), each printed next to its
** alternative measured in this run, as a ratio with its target:
**
**   1. 3*10^6 ascending integers, BEGIN; INSERT INTO seen(item) SELECT x
**      FROM src; COMMIT, into a cuckoo table sized for them against the
**      same into a heap table (CREATE TABLE heap(item)): rollback journal
**      (the default, journal_mode=DELETE) and WAL (target <= 1.0x both).
**   2. 2*10^6 TEXT items (32 hex characters) in one transaction, the same
**      two tables (target <= 0.8x).
**   3. The same TEXT items with INSERT OR IGNORE against plain INSERT, both
**      into the cuckoo table (target <= 1.15x).
**   4. INSERT OR IGNORE of the TEXT items: the cuckoo table against a
**      CREATE TABLE pk(item TEXT PRIMARY KEY) with OR IGNORE (<= 0.1x).
**   (5. executemany from Python's sqlite3: tests/bench/write_bench.py.)
**
** File databases in build/bench/, SQLite's default page cache and
** synchronous setting, the whole transaction timed (CPU seconds of this
** process, bench.h: the fsyncs of a commit are not in it), the median of
** 3 runs with the two sides taking turns.  BENCH_SCALE (default 1)
** divides every size.  Run by `make bench` and `make bench-write`.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const char *zDbFile = "build/bench/write_bench.db";
static const char *zExt = "./cuckoo.so"; /* or $CUCKOO_EXT */

/* CPU seconds of BEGIN; zSql; COMMIT. */
static double timed_txn(sqlite3 *db, const char *zSql) {
  double t0 = cpu();
  tl_exec(db, "BEGIN");
  tl_exec(db, zSql);
  tl_exec(db, "COMMIT");
  return cpu() - t0;
}

static void row(const char *zWhat, double ours, double alt, double target) {
  double r = alt > 0 ? ours / alt : 0;
  printf("| %-66s | %8.3f s | %8.3f s | %6.2fx | <= %.2fx | %-3s |\n", zWhat,
         ours, alt, r, target, r <= target ? "yes" : "no");
  fflush(stdout);
}

static sqlite3 *open_fresh(const char *zJournal) {
  sqlite3 *db = bench_open(zDbFile, zExt);
  char zSql[100];
  snprintf(zSql, sizeof(zSql), "PRAGMA journal_mode=%s", zJournal);
  tl_exec(db, zSql);
  return db;
}

/* The median of 3 of zSql into zTarget (recreated by zCreate before each
** run), the two sides taking turns: aOurs/aAlt get one timing each. */
typedef struct side {
  const char *zCreate; /* DROP + CREATE, untimed */
  const char *zInsert; /* timed inside BEGIN ... COMMIT */
  double a[3];
} side;

static void pair(sqlite3 *db, side *pOurs, side *pAlt) {
  int i;
  for (i = 0; i < 3; i++) {
    tl_exec(db, pAlt->zCreate);
    pAlt->a[i] = timed_txn(db, pAlt->zInsert);
    tl_exec(db, pOurs->zCreate);
    pOurs->a[i] = timed_txn(db, pOurs->zInsert);
  }
}

int main(void) {
  const char *z = getenv("BENCH_SCALE");
  int scale = z && atoi(z) > 0 ? atoi(z) : 1;
  sqlite3_int64 nInt = 3000000 / scale, nText = 2000000 / scale;
  char zSql[600], zCreateSeen[200], zWhat[100];
  side ours, alt;
  sqlite3 *db;
  int j;
  static const char *azJournal[] = {"DELETE", "WAL"};

  tl_zProgram = "write_bench";
  if (getenv("CUCKOO_EXT")) zExt = getenv("CUCKOO_EXT");
  printf("write_bench: the write shapes through %s, SQLite %s, "
         "default page cache, median of 3 (BENCH_SCALE=%d)\n\n",
         zExt, sqlite3_libversion(), scale);
  printf("| %-66s | %10s | %10s | %7s | %-8s | met |\n", "shape", "cuckoo",
         "other", "ratio", "target");
  printf("| --- | ---: | ---: | ---: | --- | --- |\n");

  /* 1. ascending integers in BEGIN ... COMMIT, both journal modes */
  for (j = 0; j < 2; j++) {
    db = open_fresh(azJournal[j]);
    snprintf(zSql, sizeof(zSql),
             "CREATE TABLE src(x INTEGER); WITH RECURSIVE s(i) AS (SELECT 1 "
             "UNION ALL SELECT i + 1 FROM s WHERE i < %lld) INSERT INTO src "
             "SELECT i FROM s",
             nInt);
    tl_exec(db, zSql);
    snprintf(zCreateSeen, sizeof(zCreateSeen),
             "DROP TABLE IF EXISTS seen; "
             "CREATE VIRTUAL TABLE seen USING cuckoo(capacity=%lld)",
             nInt);
    ours.zCreate = zCreateSeen;
    ours.zInsert = "INSERT INTO seen(item) SELECT x FROM src";
    alt.zCreate = "DROP TABLE IF EXISTS heap; CREATE TABLE heap(item)";
    alt.zInsert = "INSERT INTO heap(item) SELECT x FROM src";
    pair(db, &ours, &alt);
    snprintf(zWhat, sizeof(zWhat),
             "%lld ascending ints, BEGIN..COMMIT, %s: table / heap", nInt,
             j ? "WAL" : "rollback journal");
    row(zWhat, median3(ours.a), median3(alt.a), 1.0);
    sqlite3_close(db);
  }

  /* 2-4. TEXT items, rollback journal */
  db = open_fresh("DELETE");
  snprintf(zSql, sizeof(zSql),
           "CREATE TABLE words(w TEXT); WITH RECURSIVE s(i) AS (SELECT 1 "
           "UNION ALL SELECT i + 1 FROM s WHERE i < %lld) INSERT INTO words "
           "SELECT lower(hex(randomblob(16))) FROM s",
           nText);
  tl_exec(db, zSql);
  snprintf(zCreateSeen, sizeof(zCreateSeen),
           "DROP TABLE IF EXISTS seen; "
           "CREATE VIRTUAL TABLE seen USING cuckoo(capacity=%lld)",
           nText);
  {
    side plain, ignore, pk;
    plain.zCreate = zCreateSeen;
    plain.zInsert = "INSERT INTO seen(item) SELECT w FROM words";
    alt.zCreate = "DROP TABLE IF EXISTS heap; CREATE TABLE heap(item)";
    alt.zInsert = "INSERT INTO heap(item) SELECT w FROM words";
    pair(db, &plain, &alt);
    snprintf(zWhat, sizeof(zWhat),
             "%lld TEXT items (32 hex), in a transaction: table / heap", nText);
    row(zWhat, median3(plain.a), median3(alt.a), 0.8);

    ignore.zCreate = zCreateSeen;
    ignore.zInsert = "INSERT OR IGNORE INTO seen(item) SELECT w FROM words";
    pair(db, &ignore, &plain);
    row("the same, INSERT OR IGNORE / plain INSERT into the table",
        median3(ignore.a), median3(plain.a), 1.15);

    pk.zCreate = "DROP TABLE IF EXISTS pk; "
                 "CREATE TABLE pk(item TEXT PRIMARY KEY)";
    pk.zInsert = "INSERT OR IGNORE INTO pk(item) SELECT w FROM words";
    pair(db, &ignore, &pk);
    row("OR IGNORE TEXT: table / TEXT PRIMARY KEY table", median3(ignore.a),
        median3(pk.a), 0.1);
  }
  sqlite3_close(db);
  remove(zDbFile);
  return 0;
}
