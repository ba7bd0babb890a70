/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** shadow_fuzz.c: libFuzzer target for damaged shadow tables of the
** cuckoo virtual table.
**
** Each input picks one of a few template databases (a table t with its
** shadow tables t_config, t_levels, t_blocks: one or several levels,
** plain or semi-sorted, bucket sizes 2, 4 and 8, growth on and off, log
** rows, many small levels of fingerprints from 6 to 15 bits),
** built once per process and loaded (sqlite3_deserialize) into the
** process's one in-memory connection, and applies the mutations the
** input describes, with SQL on the shadow tables: config values replaced
** by integers, reals, text, BLOBs or NULL, config rows deleted or added;
** any cell of a levels row replaced, rows deleted or added; block
** contents overwritten in place, blocks truncated, extended, retyped,
** deleted, renumbered or added; a shadow table dropped.  After a first cuckoo_check(), the rest
** of the input is a program of operations on the table, in any order and
** in or out of transactions and nested savepoints: lookups (= and IN),
** joins, scans, cuckoo_table_info(), cuckoo_export() of levels 0..3,
** INSERT (one item, or a bulk insert that grows the table), INSERT OR
** IGNORE, DELETE, UPDATE, an import, 'delete-all' or DELETE FROM,
** cuckoo_check(), BEGIN, SAVEPOINT, ROLLBACK TO, RELEASE, COMMIT or
** ROLLBACK, and a rename.  Last, any open transaction is closed, the table
** checked again, renamed if the program asked, and dropped.
**
** Input format (byte 0 and the mutations are those of the first version;
** tests/fuzz/make_seeds.sh writes inputs):
**
**   template byte | mutation records (a byte other than 0xff, then the
**   record; at most 12; 0xff ends them) | operations: an opcode byte (the
**   OP_* below, modulo N_OP) and its argument bytes, at most 32
**
** A program runs a handful of statements where the first version ran the
** same fixed list of about forty on every input; the fuzzer composes the
** list (tests/fuzz/seed-shadow/ holds inputs that run all of it).
**
** Besides "no crash, no out-of-bounds access, no leak, no oversized
** allocation" (ASan, UBSan, LeakSanitizer, libFuzzer's malloc limit), the
** target asserts (abort() on violation):
**   1. Every error is one the extension documents: corruption with the
**      extended code SQLITE_CORRUPT_VTAB (267) and a message naming the
**      table ("cuckoo table t is corrupt: ..."); a table created by a
**      newer format; full / too many copies; export above
**      SQLITE_LIMIT_LENGTH (SQLITE_TOOBIG); out of memory; a write past
**      the database's size limit (SQLITE_FULL, after which SQLite may roll
**      the transaction back; before SQLite 3.44 that rollback is not
**      always exact, so rule 2 is not asserted after it there).
**   2. If the first cuckoo_check() says 'ok', no statement fails with
**      corruption, every item inserted is found right after (unless
**      that read is the one that reaches the size limit of rule 1:
**      assert_found()), and the check after the writes is 'ok' too: the
**      check sees everything the table would reject, and writes keep a
**      sound table sound.
**   3. DROP TABLE works whatever the damage (after an ALTER TABLE RENAME,
**      which works too unless a shadow table is missing).
*/
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sqlite3_cuckoo_init(sqlite3 *db, char **pzErr, const void *pApi);

/* The in-memory database's largest size (SQLITE_FCNTL_SIZE_LIMIT): a
** template with a program's writes needs well under 128 KB (14 KB at
** most over the corpus of a 60-second run; a template with the 858 items
** of a program's 6 largest bulk inserts, 10 KB), and a crafted
** capacity's level reaches the limit (SQLITE_FULL) once SQLite writes
** the file: about 8 ms under ASan, where the 1 MB of the first version
** took 60 to 200 ms, a third of all the time the fuzzer spent.  SQLite
** writes the file when it commits or spills its page cache (2,000 KiB),
** so one statement can write more than the limit first: a 'delete-all'
** of a format-1 table of crafted capacity wrote 8,841 zero blocks of 52
** bytes each time.  A page cache of 64 pages, or a max_page_count of
** 128, would stop it sooner (an input that ran eight such statements: 6
** to 7 ms against 18 ms; 4.7% more executions in 150 s with the cache),
** but the seed regress-full-on-read then fails earlier, not at the
** read it was kept for, and no input of a 19,615-input corpus reached
** that read's failure any more (docs/reliability.md). */
#define DB_SIZE_LIMIT (128 << 10)

/* ASan keeps freed memory in quarantine to catch a use after free; one
** input allocates and frees 0.3 MB (an empty program) to a few MB, so a
** 4 MB quarantine still covers the rest of the input that freed a block,
** where a larger one makes every allocation touch memory out of the CPU's
** caches: 32 MB made an empty program 2 to 3 times slower, the default
** 256 MB 3 times slower again. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "quarantine_size_mb=4"; }

/* Under ASan, SQLite's lookaside is turned off (build_templates()):
** SQLite then takes every allocation of its own from malloc(), exactly
** sized, so ASan sees a read past a value SQLite gave the extension (a
** short block row read as a full one); from a slot of the lookaside
** buffer the same read stays inside memory ASan counts as allocated.
** Debian's SQLite is built without lookaside; the fast build's SQLite
** (tests/fuzz/Makefile) has it, and its ASan replay turns it off here.
** With the length check of ckst_block_row() removed, the replay of a
** fast run's corpus found the overflow with lookaside off only. */
#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif

#define FUZZ_ASSERT(x)                                                         \
  do {                                                                         \
    if (!(x)) {                                                                \
      fprintf(stderr, "shadow_fuzz: assertion failed: %s (line %d)\n", #x,     \
              __LINE__);                                                       \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* Statements of the current input, by SQL text: an input runs the same
** few statements again and again (a program repeats its opcodes, the
** mutations look blocks up), and preparing one costs more than most
** runs of it (SQLite parses it, with a hundred or so allocations, each
** costly under ASan).  The cache is emptied at the end of every input:
** the next input's database is a new one (sqlite3_deserialize), so a
** statement kept would be prepared again anyway.  A statement is reset
** (its bindings cleared) before each use, so it runs as a fresh one. */
#define N_STMT 64
static struct {
  char *zSql;
  sqlite3_stmt *s;
} aStmt[N_STMT];
static int nStmt;

/* Prepare zSql, or take it from the cache; release with stmt_done(). */
static int stmt_get(sqlite3 *db, const char *zSql, sqlite3_stmt **pp) {
  int i, rc;
  for (i = 0; i < nStmt; i++) {
    if (strcmp(aStmt[i].zSql, zSql) == 0) {
      *pp = aStmt[i].s;
      return SQLITE_OK;
    }
  }
  rc = sqlite3_prepare_v3(db, zSql, -1, SQLITE_PREPARE_PERSISTENT, pp, 0);
  if (rc == SQLITE_OK && *pp && nStmt < N_STMT) {
    size_t n = strlen(zSql) + 1;
    aStmt[nStmt].zSql = malloc(n);
    FUZZ_ASSERT(aStmt[nStmt].zSql != 0);
    memcpy(aStmt[nStmt].zSql, zSql, n);
    aStmt[nStmt].s = *pp;
    nStmt++;
  }
  return rc;
}

/* Done with a statement of stmt_get(): reset if cached, else finalized. */
static void stmt_done(sqlite3_stmt *s) {
  int i;
  for (i = 0; i < nStmt; i++) {
    if (aStmt[i].s == s) {
      sqlite3_reset(s);
      sqlite3_clear_bindings(s);
      return;
    }
  }
  sqlite3_finalize(s);
}

static void stmt_clear(void) {
  int i;
  for (i = 0; i < nStmt; i++) {
    sqlite3_finalize(aStmt[i].s);
    free(aStmt[i].zSql);
  }
  nStmt = 0;
}

/* Template databases: the table and its items. */
static const char *azTemplate[] = {
    /* three levels of 64-byte blocks, items of every type */
    "CREATE VIRTUAL TABLE t USING cuckoo(capacity=40, error_rate=0.01, "
    "block_size=64);"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE "
    "i<150) INSERT INTO t SELECT CASE i % 3 WHEN 0 THEN i WHEN 1 THEN 'k' || "
    "i ELSE i + 0.5 END FROM n;",
    /* one semi-sorted level */
    "CREATE VIRTUAL TABLE t USING cuckoo(capacity=100, error_rate=0.001, "
    "block_size=64, semisort);"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE "
    "i<80) INSERT INTO t SELECT i FROM n;",
    /* growth off, bucket size 2, nearly full */
    "CREATE VIRTUAL TABLE t USING cuckoo(capacity=60, growth=off, "
    "bucket_size=2, block_size=64, cache_size=1);"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE "
    "i<58) INSERT INTO t SELECT 'x' || i FROM n;",
    /* bucket size 8, a seed, two levels, copies of one item */
    "CREATE VIRTUAL TABLE t USING cuckoo(capacity=30, bucket_size=8, "
    "seed=7, block_size=100);"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE "
    "i<50) INSERT INTO t SELECT i FROM n;"
    "INSERT INTO t VALUES (7), (7), (7);",
    /* format 3 with log rows: small commits (each statement its own) into
    ** a level of 8 blocks, an insert and a removal logged; then growth,
    ** which merges, and logged commits on the new level (three log rows,
    ** of 4, 2 and 1 operations).  Capacity 200, not more: every full
    ** scan, count(*), cuckoo_check(), load and emptying of an input walks
    ** the whole table, and the first version's 2,000 items (70 blocks)
    ** made those several times costlier for the same rows, logs and
    ** merges; a bulk insert can also grow this level (room 400) */
    "CREATE VIRTUAL TABLE t USING cuckoo(capacity=200, error_rate=0.01, "
    "block_size=64);"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE "
    "i<190) INSERT INTO t SELECT i FROM n;"
    "INSERT INTO t VALUES ('a'), ('b');"
    "INSERT INTO t VALUES (2.5);"
    "DELETE FROM t WHERE item = 7;"
    "INSERT INTO t VALUES ('c'), ('d'), ('e'), ('f'), ('g'), ('h'), "
    "('i'), ('j'), ('k'), ('l'), ('m'), ('n');"
    "INSERT INTO t VALUES (x'01'), (x'02');"
    "DELETE FROM t WHERE item = 'a';",
    /* many small levels, plain: capacity 2, five levels of fingerprints
    ** of 11 to 15 bits (the newest one's buckets past 57 bits, read as
    ** 128-bit words), and a bulk insert grows it by two or three levels
    ** more (16 bits and up).  Each level's width has code of its own in
    ** the core (bucket words, wide words, fields); without this template
    ** only many large bulk inserts reached those widths */
    "CREATE VIRTUAL TABLE t USING cuckoo(capacity=2, error_rate=0.01, "
    "block_size=64);"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE "
    "i<40) INSERT INTO t SELECT 'd' || i FROM n;",
    /* the same, semi-sorted, with short fingerprints: three levels of 6
    ** to 8 bits, inserts going to the 8-bit one (the semi-sorted match of
    ** 2 to 4 low bits per slot loops, from 5 on it multiplies: a growth
    ** reaches it; tpl1's growth reaches 16 bits, read field by field).
    ** Without it only crafted error rates reached short semi-sorted
    ** fingerprints */
    "CREATE VIRTUAL TABLE t USING cuckoo(capacity=4, error_rate=0.3, "
    "block_size=64, semisort);"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE "
    "i<20) INSERT INTO t SELECT i FROM n;",
};
#define N_TEMPLATE (int)(sizeof(azTemplate) / sizeof(azTemplate[0]))

static unsigned char *aImage[N_TEMPLATE];
#define N_PAGE 512 /* pages of the page-cache buffer (2.2 MB) */
static sqlite3_int64 nImage[N_TEMPLATE];

static void build_templates(void) {
  int i;
  /* Pages come from one buffer allocated here, not one allocation each:
  ** an input reads and writes about 400 pages (its database's 1 KB pages
  ** and the 4 KB pages of temporary files), 0.7 MB that ASan's allocator
  ** would fill, poison and quarantine.  The extension never sees page
  ** memory (a column's BLOB or TEXT is copied out of the page into a
  ** value of its own), so nothing ASan checks for it is lost.  Beyond
  ** N_PAGE pages, SQLite allocates pages one by one again. */
  {
    int nHdr = 0;
    size_t szPage;
    static void *pPages;
    FUZZ_ASSERT(sqlite3_config(SQLITE_CONFIG_PCACHE_HDRSZ, &nHdr) ==
                SQLITE_OK);
    szPage = ((size_t)4096 + (size_t)nHdr + 15) & ~(size_t)15;
    pPages = malloc(szPage * N_PAGE);
    FUZZ_ASSERT(pPages != 0);
    FUZZ_ASSERT(sqlite3_config(SQLITE_CONFIG_PAGECACHE, pPages, (int)szPage,
                               N_PAGE) == SQLITE_OK);
  }
  /* One thread, no memory statistics: no mutex around each of the
  ** thousands of allocations of an input.  A SQLite built without
  ** mutexes (SQLITE_THREADSAFE=0, the fuzz builds' own; tests/fuzz/
  ** Makefile) has nothing to turn off and refuses the option. */
  if (sqlite3_threadsafe())
    FUZZ_ASSERT(sqlite3_config(SQLITE_CONFIG_SINGLETHREAD) == SQLITE_OK);
#ifdef FUZZ_ASAN
  FUZZ_ASSERT(sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0) == SQLITE_OK);
#endif
  FUZZ_ASSERT(sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK);
  for (i = 0; i < N_TEMPLATE; i++) {
    sqlite3 *db = 0;
    unsigned char *p;
    FUZZ_ASSERT(sqlite3_open(":memory:", &db) == SQLITE_OK);
    FUZZ_ASSERT(sqlite3_exec(db, "PRAGMA page_size=1024", 0, 0, 0) ==
                SQLITE_OK);
    FUZZ_ASSERT(sqlite3_cuckoo_init(db, 0, 0) == SQLITE_OK);
    FUZZ_ASSERT(sqlite3_exec(db, azTemplate[i], 0, 0, 0) == SQLITE_OK);
    p = sqlite3_serialize(db, "main", &nImage[i], 0);
    FUZZ_ASSERT(p != 0);
    aImage[i] = malloc((size_t)nImage[i]);
    FUZZ_ASSERT(aImage[i] != 0);
    memcpy(aImage[i], p, (size_t)nImage[i]);
    sqlite3_free(p);
    sqlite3_close(db);
  }
}

/* Input reader: bytes, then zeros once exhausted. */
typedef struct reader {
  const uint8_t *p;
  size_t n, i;
} reader;
static int rd_more(const reader *r) { return r->i < r->n; }
static unsigned rd_byte(reader *r) { return r->i < r->n ? r->p[r->i++] : 0; }
static int64_t rd_int(reader *r) {
  /* mostly small or boundary values, sometimes 8 raw bytes */
  static const int64_t aSpecial[] = {
      0,         1,         -1,         2,
      4,         8,         7,          64,
      255,       256,       4294967295, 4294967296,
      INT64_MAX, INT64_MIN, 1 << 20,    (1 << 20) + 1};
  unsigned k = rd_byte(r);
  if (k < 128) return (int64_t)k - 16;
  if (k < 200) return aSpecial[k % 16];
  {
    uint64_t v = 0;
    int j;
    for (j = 0; j < 8; j++)
      v = (v << 8) | rd_byte(r);
    return (int64_t)v;
  }
}

/* Bind a fuzzed value of a fuzzed type to parameter i. */
static void bind_value(sqlite3_stmt *s, int i, reader *r) {
  unsigned t = rd_byte(r) % 6;
  switch (t) {
  case 0:
  case 1: sqlite3_bind_int64(s, i, rd_int(r)); break;
  case 2: {
    static const double aR[] = {0.0, 0.5, 1.0, 2.0, 1e-9, 1e300, -0.001, 0.01};
    sqlite3_bind_double(s, i, aR[rd_byte(r) % 8]);
    break;
  }
  case 3:
  case 4: {
    unsigned n = rd_byte(r) % 24, j;
    char z[24];
    for (j = 0; j < n; j++)
      z[j] = (char)rd_byte(r);
    if (t == 3) {
      /* text: keep it valid UTF-8 (ASCII) */
      for (j = 0; j < n; j++)
        z[j] = (char)(32 + (unsigned char)z[j] % 95);
      sqlite3_bind_text(s, i, z, (int)n, SQLITE_TRANSIENT);
    } else {
      sqlite3_bind_blob(s, i, z, (int)n, SQLITE_TRANSIENT);
    }
    break;
  }
  default: sqlite3_bind_null(s, i); break;
  }
}

static void run_bound(sqlite3 *db, const char *zSql, reader *r, int nValue,
                      const int64_t *aInt, int nInt) {
  sqlite3_stmt *s = 0;
  int i;
  if (stmt_get(db, zSql, &s) != SQLITE_OK) return;
  for (i = 0; i < nInt; i++)
    sqlite3_bind_int64(s, i + 1, aInt[i]);
  for (i = 0; i < nValue; i++)
    bind_value(s, nInt + i + 1, r);
  while (sqlite3_step(s) == SQLITE_ROW) {
  }
  stmt_done(s);
}

/* The id of the k-th block row (any if k is past the end). */
static int64_t block_id(sqlite3 *db, unsigned k) {
  sqlite3_stmt *s = 0;
  int64_t id = 0;
  if (stmt_get(db,
               "SELECT id FROM t_blocks ORDER BY id LIMIT 1 OFFSET "
               "?1 % (SELECT max(count(*), 1) FROM t_blocks)",
               &s) != SQLITE_OK) {
    return 0;
  }
  sqlite3_bind_int(s, 1, (int)k);
  if (sqlite3_step(s) == SQLITE_ROW) id = sqlite3_column_int64(s, 0);
  stmt_done(s);
  return id;
}

static const char *azKey[] = {
    "version",  "seed",       "bucket_size", "variant", "error_rate", "growth",
    "capacity", "block_size", "cache_size",  "cookie",  "other"};
static const char *azCol[] = {
    "level",    "nbuckets",          "bucket_size", "fp_bits", "flags",
    "capacity", "buckets_per_block", "block_bytes", "count"};

/* Apply one mutation described by the input. */
static void mutate(sqlite3 *db, reader *r) {
  unsigned op = rd_byte(r) % 12;
  char zSql[300];
  int64_t a[3];
  switch (op) {
  case 0: /* a config value */
    snprintf(zSql, sizeof(zSql), "UPDATE t_config SET v = ?1 WHERE k = '%s'",
             azKey[rd_byte(r) % 11]);
    run_bound(db, zSql, r, 1, 0, 0);
    break;
  case 1: /* a config row deleted, or added */
    if (rd_byte(r) & 1) {
      snprintf(zSql, sizeof(zSql), "DELETE FROM t_config WHERE k = '%s'",
               azKey[rd_byte(r) % 11]);
      run_bound(db, zSql, r, 0, 0, 0);
    } else {
      snprintf(zSql, sizeof(zSql),
               "INSERT OR REPLACE INTO t_config(k, v) VALUES('%s', ?1)",
               azKey[rd_byte(r) % 11]);
      run_bound(db, zSql, r, 1, 0, 0);
    }
    break;
  case 2:
  case 3: /* a cell of a levels row */
    a[0] = rd_byte(r) % 4;
    snprintf(zSql, sizeof(zSql), "UPDATE t_levels SET %s = ?2 WHERE level = ?1",
             azCol[rd_byte(r) % 9]);
    run_bound(db, zSql, r, 1, a, 1);
    break;
  case 4: /* a levels row deleted or copied */
    a[0] = rd_byte(r) % 4;
    a[1] = rd_int(r);
    if (rd_byte(r) & 1) {
      run_bound(db, "DELETE FROM t_levels WHERE level = ?1", r, 0, a, 1);
    } else {
      run_bound(db,
                "INSERT OR REPLACE INTO t_levels SELECT ?2, nbuckets, "
                "bucket_size, fp_bits, flags, capacity, buckets_per_block, "
                "block_bytes, count FROM t_levels WHERE level = ?1",
                r, 0, a, 2);
    }
    break;
  case 5:
  case 6: { /* bytes overwritten inside a block (length kept) */
    unsigned n = 1 + rd_byte(r) % 16, j;
    uint8_t buf[16];
    sqlite3_stmt *s = 0;
    a[0] = block_id(db, rd_byte(r));
    a[1] = rd_byte(r);
    for (j = 0; j < n; j++)
      buf[j] = (uint8_t)rd_byte(r);
    if (stmt_get(db,
                 "UPDATE t_blocks SET data = CAST(substr(data, 1, ?2 % "
                 "max(length(data), 1)) || ?3 || substr(data, ?2 % "
                 "max(length(data), 1) + 1 + length(?3)) AS BLOB) WHERE id = "
                 "?1 AND length(data) > 0",
                 &s) == SQLITE_OK) {
      sqlite3_bind_int64(s, 1, a[0]);
      sqlite3_bind_int64(s, 2, a[1]);
      sqlite3_bind_blob(s, 3, buf, (int)n, SQLITE_TRANSIENT);
      sqlite3_step(s);
      stmt_done(s);
    }
    break;
  }
  case 7: /* a block truncated, extended or replaced by another value */
    a[0] = block_id(db, rd_byte(r));
    switch (rd_byte(r) % 3) {
    case 0:
      a[1] = rd_byte(r);
      run_bound(db,
                "UPDATE t_blocks SET data = CAST(substr(data, 1, ?2) AS BLOB) "
                "WHERE id = ?1",
                r, 0, a, 2);
      break;
    case 1:
      a[1] = rd_byte(r) % 64 + 1;
      run_bound(db,
                "UPDATE t_blocks SET data = data || zeroblob(?2) WHERE id = ?1",
                r, 0, a, 2);
      break;
    default:
      run_bound(db, "UPDATE t_blocks SET data = ?2 WHERE id = ?1", r, 1, a, 1);
      break;
    }
    break;
  case 8: /* a block deleted or renumbered */
    a[0] = block_id(db, rd_byte(r));
    a[1] = rd_int(r);
    if (rd_byte(r) & 1) {
      run_bound(db, "DELETE FROM t_blocks WHERE id = ?1", r, 0, a, 1);
    } else {
      run_bound(db, "UPDATE OR REPLACE t_blocks SET id = ?2 WHERE id = ?1", r,
                0, a, 2);
    }
    break;
  case 9: /* an extra block row */
    a[0] = rd_int(r);
    a[1] = rd_byte(r) * 4;
    run_bound(db, "INSERT OR REPLACE INTO t_blocks VALUES(?1, zeroblob(?2))", r,
              0, a, 2);
    break;
  case 10: /* a copy of another block's contents */
    a[0] = block_id(db, rd_byte(r));
    a[1] = block_id(db, rd_byte(r));
    run_bound(db,
              "UPDATE t_blocks SET data = (SELECT data FROM t_blocks WHERE "
              "id = ?2) WHERE id = ?1",
              r, 0, a, 2);
    break;
  default: /* a shadow table dropped (rarely) */
    if (rd_byte(r) % 8 == 0) {
      static const char *az[] = {"DROP TABLE t_config", "DROP TABLE t_levels",
                                 "DROP TABLE t_blocks"};
      sqlite3_exec(db, az[rd_byte(r) % 3], 0, 0, 0);
    }
    break;
  }
}

/* The state of one input's run. */
typedef struct run {
  sqlite3 *db;
  int bSound; /* the first cuckoo_check() said 'ok' */
  int nCorrupt;
  int bFull; /* a write reached the database's size limit */
  int nBulk; /* bulk inserts so far: each inserts items of its own */
} run;

/* Check the error of a failed statement (rule 1, 2). */
static void check_error(run *p, int rc, const char *zSql) {
  const char *zErr = sqlite3_errmsg(p->db);
  int ext = sqlite3_extended_errcode(p->db);
  (void)rc;
  if (ext == SQLITE_NOMEM) return;
  if (ext == SQLITE_TOOBIG) return;
  /* A crafted capacity or geometry can ask for a level of any size the
  ** format allows, as a real table of that capacity has; the database is
  ** capped at DB_SIZE_LIMIT, so such a write fails with SQLITE_FULL, and
  ** SQLite may then roll the whole transaction back (so a later RELEASE
  ** or COMMIT finds none). */
  if (ext == SQLITE_FULL) {
    p->bFull = 1;
    /* SQLite before 3.44 can roll such a transaction back to a state
    ** that is not the one it began with (seen with 3.40.1: the levels
    ** rows gone, the block rows back, integrity_check ok; 3.44.2 and
    ** later restore both), so rule 2 holds from 3.44 on only. */
    if (sqlite3_libversion_number() < 3044000) p->bSound = 0;
    return;
  }
  if (p->bFull && (strstr(zErr, "no such savepoint") ||
                   strstr(zErr, "no transaction is active"))) {
    return;
  }
  if (strstr(zErr, "is corrupt")) {
    if (ext != SQLITE_CORRUPT_VTAB ||
        strncmp(zErr, "cuckoo table t is corrupt: ", 27) != 0) {
      fprintf(stderr, "shadow_fuzz: corruption reported with code %d: %s\n",
              ext, zErr);
      abort();
    }
    if (p->bSound) {
      fprintf(stderr,
              "shadow_fuzz: cuckoo_check() said ok, but %s failed: %s\n", zSql,
              zErr);
      abort();
    }
    p->nCorrupt++;
    return;
  }
  if (strstr(zErr, "cuckoo table t: created by a newer cuckoo") ||
      strstr(zErr, "cuckoo table t: filter is full") ||
      strstr(zErr, "cuckoo table t: too many copies") ||
      strstr(zErr, "cuckoo table t cannot list its items") ||
      strstr(zErr, "has no rowid of its own") ||
      strstr(zErr, "cuckoo table t: cannot be emptied") ||
      strstr(zErr, "cuckoo_export: cuckoo table t has") ||
      strstr(zErr, "cuckoo_export: level must be") ||
      strstr(zErr, "cuckoo table t: the imported") ||
      /* a program can import again and again */
      strstr(zErr, "cuckoo table t: cannot import: the table already has")) {
    return;
  }
  fprintf(stderr, "shadow_fuzz: unexpected error %d from %s: %s\n", ext, zSql,
          zErr);
  abort();
}

/* Run zSql (items bound from the input); returns the first column of the
** last row as an integer, or -1 after an error. */
static int64_t use(run *p, const char *zSql, const int64_t *aInt, int nInt) {
  sqlite3_stmt *s = 0;
  int rc, i;
  int64_t v = 0;
  rc = stmt_get(p->db, zSql, &s);
  if (rc != SQLITE_OK) {
    check_error(p, rc, zSql);
    return -1;
  }
  for (i = 0; i < nInt; i++)
    sqlite3_bind_int64(s, i + 1, aInt[i]);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW)
    v = sqlite3_column_int64(s, 0);
  if (rc != SQLITE_DONE) {
    check_error(p, rc, zSql);
    v = -1;
  }
  stmt_done(s);
  return v;
}

/* cuckoo_check('t'): 1 if 'ok', 0 if problems, -1 on error. */
static int check_table(run *p) {
  sqlite3_stmt *s = 0;
  int r = -1, rc;
  if (stmt_get(p->db, "SELECT cuckoo_check('t')", &s) != SQLITE_OK) {
    return -1;
  }
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    const char *z = (const char *)sqlite3_column_text(s, 0);
    r = z && strcmp(z, "ok") == 0;
  } else {
    check_error(p, rc, "cuckoo_check");
  }
  stmt_done(s);
  return r;
}

/* Did the statement just run (use(), check_table()) fail with
** SQLITE_FULL?  Rule 2's reads can: inside a transaction a read places
** the items pending first (docs/virtual-table.md, "Inserts are
** deferred"), which can be an earlier statement's, and SQLite spills its
** page cache to make room for what a read loads; either write can reach
** the database's size limit (rule 1), after which SQLite has rolled the
** transaction back.  Such a read gives no answer (check_error() has set
** bFull); any answer it gives must be the right one. */
static int failed_full(run *p) {
  return sqlite3_extended_errcode(p->db) == SQLITE_FULL;
}

/* Rule 2 after an insert that succeeded: a read finds its item. */
static void assert_found(run *p, const char *zSql, const int64_t *aInt,
                         int nInt) {
  int64_t n = use(p, zSql, aInt, nInt);
  FUZZ_ASSERT(n == 1 || (n < 0 && failed_full(p)));
}

/* Rule 2: the table is still sound. */
static void assert_sound(run *p) {
  int k = check_table(p);
  FUZZ_ASSERT(k == 1 || (k < 0 && failed_full(p)));
}

/* Reads: each reads the item bound to ?1 (if it has one). */
static const char *azRead[] = {
    "SELECT count(*) FROM t WHERE item = ?1",
    "SELECT count(*) FROM t WHERE item IN (1, 2, 7, 'k1', 'x3', 2.5, ?1)",
    "SELECT length(cuckoo_table_info('t'))",
    "SELECT length(cuckoo_export('t'))",
    "SELECT length(cuckoo_export('main', 't', ?1 % 4))",
    ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE "
     "i<200) SELECT count(*) FROM n JOIN t ON t.item = n.i"),
    "SELECT count(*) FROM t",
    "SELECT count(*), sum(copies), count(DISTINCT rowid) FROM t",
    "SELECT max(rowid) FROM t WHERE fingerprint % 3 = ?1 % 3",
    "SELECT level, bucket, fingerprint, copies FROM t WHERE item = ?1",
};
#define N_READ (int)(sizeof(azRead) / sizeof(azRead[0]))

/* Operations of the program (opcode byte modulo N_OP), with the argument
** bytes each reads after its opcode. */
enum {
  OP_READ,        /* read k (byte % N_READ), item (int) */
  OP_INSERT,      /* item (int); found right after, if the table is sound */
  OP_BULK,        /* 16 + byte % 128 new items: enough to grow a level */
  OP_BEGIN,       /* (if no transaction is open) */
  OP_SAVEPOINT,   /* (at most 3 open) */
  OP_IGNORE,      /* item (int): INSERT OR IGNORE */
  OP_DELETE,      /* item (byte % 200) */
  OP_UPDATE,      /* item (byte % 200), new item (int) */
  OP_ROLLBACK_TO, /* the innermost savepoint (if any) */
  OP_RELEASE,     /* the innermost savepoint (if any) */
  OP_IMPORT,      /* level 0 exported and appended as a new level */
  OP_CHECK,       /* cuckoo_check(): 'ok' if the table is sound */
  OP_EMPTY,       /* byte & 1: DELETE FROM t, else 'delete-all' */
  OP_END,    /* byte & 1: COMMIT, else ROLLBACK (if a transaction is open) */
  OP_RENAME, /* byte % 16 == 15: rename before the DROP TABLE */
  N_OP
};
#define MAX_OPS 32
#define MAX_BULK 6 /* bulk inserts per program; the others do nothing */

/* One operation of the program; returns 1 for OP_RENAME. */
static int run_op(run *p, unsigned op, reader *rd, int *pnSave) {
  static const char *azSave[] = {"SAVEPOINT s0", "SAVEPOINT s1",
                                 "SAVEPOINT s2"};
  static const char *azRollbackTo[] = {"ROLLBACK TO s0", "ROLLBACK TO s1",
                                       "ROLLBACK TO s2"};
  static const char *azRelease[] = {"RELEASE s0", "RELEASE s1", "RELEASE s2"};
  int64_t aInt[2];
  int k;
  switch (op) {
  case OP_READ:
    k = (int)(rd_byte(rd) % N_READ);
    aInt[0] = rd_int(rd);
    use(p, azRead[k], aInt, 1);
    break;
  case OP_INSERT:
    aInt[0] = rd_int(rd);
    if (use(p, "INSERT INTO t VALUES (?1)", aInt, 1) == 0 && p->bSound) {
      assert_found(p, "SELECT count(*) FROM t WHERE item = ?1", aInt, 1);
    }
    break;
  case OP_BULK:
    /* items 'bulk<n>.<i>': the same items again would pile up copies,
    ** which costs ten times more per bulk insert and OP_INSERT covers.
    ** 16 to 143 items (the newest level of every template but the log's
    ** has room for 130 at most, so one bulk insert can grow it, and three
    ** that of the log's) and at most MAX_BULK per program: bulk inserts
    ** were half of all the time of a long run (100 to 355 items each,
    ** 3.5 per input), and each inserts items no other has */
    k = (int)rd_byte(rd);
    if (p->nBulk >= MAX_BULK) break;
    aInt[0] = 16 + k % 128;
    aInt[1] = p->nBulk++;
    if (use(p,
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n "
            "WHERE i < ?1) INSERT INTO t SELECT 'bulk' || ?2 || '.' || i "
            "FROM n",
            aInt, 2) == 0 &&
        p->bSound) {
      assert_found(p,
                   "SELECT count(*) FROM t WHERE item = 'bulk' || ?2 || '.' || "
                   "?1",
                   aInt, 2);
    }
    break;
  case OP_BEGIN:
    if (sqlite3_get_autocommit(p->db)) use(p, "BEGIN", 0, 0);
    break;
  case OP_SAVEPOINT:
    if (*pnSave < 3 && use(p, azSave[*pnSave], 0, 0) == 0) (*pnSave)++;
    break;
  case OP_IGNORE:
    aInt[0] = rd_int(rd);
    use(p, "INSERT OR IGNORE INTO t VALUES (?1)", aInt, 1);
    break;
  case OP_DELETE:
    aInt[0] = rd_byte(rd) % 200;
    use(p, "DELETE FROM t WHERE item = ?1", aInt, 1);
    break;
  case OP_UPDATE:
    aInt[0] = rd_byte(rd) % 200;
    aInt[1] = rd_int(rd);
    use(p, "UPDATE t SET item = ?2 WHERE item = ?1", aInt, 2);
    break;
  case OP_ROLLBACK_TO:
    if (*pnSave > 0) use(p, azRollbackTo[*pnSave - 1], 0, 0);
    break;
  case OP_RELEASE:
    if (*pnSave > 0 && use(p, azRelease[*pnSave - 1], 0, 0) == 0) (*pnSave)--;
    break;
  case OP_IMPORT:
    use(p, "INSERT INTO t(filter) SELECT cuckoo_export('main', 't', 0)", 0, 0);
    break;
  case OP_CHECK:
    if (p->bSound) {
      assert_sound(p);
    } else {
      check_table(p);
    }
    break;
  case OP_EMPTY:
    if (use(p,
            rd_byte(rd) & 1 ? "DELETE FROM t"
                            : "INSERT INTO t(t) VALUES('delete-all')",
            0, 0) == 0 &&
        p->bSound) {
      int64_t n = use(p, "SELECT count(*) FROM t", 0, 0);
      FUZZ_ASSERT(n == 0 || (n < 0 && failed_full(p)));
      assert_sound(p);
    }
    break;
  case OP_END:
    k = rd_byte(rd) & 1;
    if (!sqlite3_get_autocommit(p->db)) {
      use(p, k ? "COMMIT" : "ROLLBACK", 0, 0);
      sqlite3_exec(p->db, "ROLLBACK", 0, 0, 0); /* if COMMIT failed */
    }
    break;
  default:
    /* OP_RENAME: ALTER TABLE RENAME costs as much as 40 reads (0.66 ms
    ** without instrumentation: SQLite parses the whole schema three times
    ** for the table and again for each shadow table), and a program has
    ** one opcode in 15 of this kind.  When a zero byte asked (the
    ** fuzzer's mutations write many), and later a missing one (an input
    ** that ends with this opcode, as most seeds did), a fifth of the
    ** inputs renamed, a fifth of the fuzzer's time.  So only an argument
    ** byte of 15 modulo 16 asks; the seeds that rename end with one. */
    return rd_byte(rd) % 16 == 15;
  }
  /* A failed write may have rolled the whole transaction back
  ** (SQLITE_FULL), and COMMIT and ROLLBACK end every savepoint. */
  if (sqlite3_get_autocommit(p->db)) *pnSave = 0;
  return 0;
}

/* The one connection every input runs on (see LLVMFuzzerTestOneInput). */
static sqlite3 *gDb;

static void open_connection(void) {
  FUZZ_ASSERT(sqlite3_open(":memory:", &gDb) == SQLITE_OK);
  FUZZ_ASSERT(sqlite3_cuckoo_init(gDb, 0, 0) == SQLITE_OK);
  /* exports of absurd geometries stop here, not at a huge allocation */
  sqlite3_limit(gDb, SQLITE_LIMIT_LENGTH, 4 << 20);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  run R;
  reader rd;
  unsigned char *img;
  int iTpl, nMut = 0, nOp = 0, nSave = 0, bRename = 0;
  const char *zDrop;

  if (aImage[0] == 0) {
    build_templates();
    open_connection();
  }
  if (size > 4096) return 0;
  rd.p = data;
  rd.n = size;
  rd.i = 0;
  memset(&R, 0, sizeof(R));
  /* (bytes 4 to 6 pick the templates added later, the one with log rows
  ** and the two of many levels; every other byte the template of the
  ** first four it picked before those were added) */
  {
    unsigned b = rd_byte(&rd);
    iTpl = b >= 4 && b < N_TEMPLATE ? (int)b : (int)(b % 4);
  }

  /* One connection serves every input: sqlite3_deserialize() replaces
  ** its database with the template's image (dropping the schema, so the
  ** table is connected afresh), and the previous input left no
  ** statement, transaction or table behind (it ends with ROLLBACK, DROP
  ** TABLE, aborting if the DROP fails, and an empty database).
  ** Opening a connection and registering the extension per input cost
  ** as much as a short program. */
  R.db = gDb;
  FUZZ_ASSERT(sqlite3_get_autocommit(R.db));
  FUZZ_ASSERT(sqlite3_next_stmt(R.db, 0) == 0);
  img = sqlite3_malloc64((sqlite3_uint64)nImage[iTpl]);
  FUZZ_ASSERT(img != 0);
  memcpy(img, aImage[iTpl], (size_t)nImage[iTpl]);
  FUZZ_ASSERT(sqlite3_deserialize(R.db, "main", img, nImage[iTpl], nImage[iTpl],
                                  SQLITE_DESERIALIZE_FREEONCLOSE |
                                      SQLITE_DESERIALIZE_RESIZEABLE) ==
              SQLITE_OK);
  /* and levels of absurd capacities at the database's size limit */
  {
    sqlite3_int64 lim = DB_SIZE_LIMIT;
    FUZZ_ASSERT(sqlite3_file_control(R.db, "main", SQLITE_FCNTL_SIZE_LIMIT,
                                     &lim) == SQLITE_OK);
  }

  while (rd_more(&rd) && nMut < 12) {
    if (rd_byte(&rd) == 0xff) break; /* end of mutations */
    mutate(R.db, &rd);
    nMut++;
  }

  /* The first check decides whether the table is sound. */
  R.bSound = check_table(&R) == 1;
  while (rd_more(&rd) && nOp < MAX_OPS) {
    bRename |= run_op(&R, rd_byte(&rd) % N_OP, &rd, &nSave);
    nOp++;
  }
  if (!sqlite3_get_autocommit(R.db)) {
    use(&R, "ROLLBACK", 0, 0);
  }
  if (R.bSound) FUZZ_ASSERT(check_table(&R) == 1);
  stmt_clear();

  /* A damaged table can always be renamed (unless a shadow table is
  ** missing) and dropped.  An input that damaged nothing (no mutation)
  ** leaves its table to the database's end below (the table is
  ** disconnected, not destroyed): renaming and dropping an undamaged
  ** table is what the Tcl tests do, and the rename of an input costs
  ** more than its program (five ALTER TABLE statements, each of which
  ** parses the whole schema several times; a quarter of all the time of
  ** a replay of a long run's corpus), the DROP TABLE about a third of an
  ** input with an empty program. */
  if (nMut > 0) {
    zDrop = bRename && sqlite3_exec(R.db, "ALTER TABLE t RENAME TO t2", 0, 0,
                                    0) == SQLITE_OK
                ? "DROP TABLE t2"
                : "DROP TABLE t";
    /* SQLite before 3.44 can also roll a transaction back after
    ** SQLITE_FULL to a database its own b-tree then finds malformed
    ** (3.40.1: plain SQLITE_CORRUPT from DROP TABLE, "database
    ** corruption at line 6632"; the same input drops its table on 3.54.1,
    ** the fast build's SQLite): SQLite's defect, not the extension's,
    ** which reports corruption with SQLITE_CORRUPT_VTAB only. */
    if (sqlite3_exec(R.db, zDrop, 0, 0, 0) != SQLITE_OK &&
        !(R.bFull && sqlite3_libversion_number() < 3044000 &&
          sqlite3_extended_errcode(R.db) == SQLITE_CORRUPT)) {
      fprintf(stderr, "shadow_fuzz: DROP TABLE failed: %s\n",
              sqlite3_errmsg(R.db));
      abort();
    }
  }
  /* The input ends with the state it began with, an empty database: its
  ** image, pages and schema are freed now, in the input that allocated
  ** them.  Each input then frees what it allocates, and libFuzzer runs
  ** an input again with LeakSanitizer only when it does leak (it does
  ** so whenever an input's allocations outnumber its frees). */
  FUZZ_ASSERT(sqlite3_deserialize(R.db, "main", 0, 0, 0, 0) == SQLITE_OK);
  /* A table left to the end is disconnected at the next statement's
  ** preparation (SQLite defers xDisconnect): this one, so that its
  ** statements and memory go now too. */
  if (nMut == 0) {
    FUZZ_ASSERT(sqlite3_exec(R.db, "SELECT 1", 0, 0, 0) == SQLITE_OK);
  }
  return 0;
}
