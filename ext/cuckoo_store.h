/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_store.h: the block store behind the cuckoo virtual table: one
** table's filter kept in shadow tables, read and written through a
** per-connection block cache.  cuckoo_vtab.c maps SQL onto it; this
** header is all it sees of the store.  The store's own files, by concern,
** are listed in cuckoo_store_int.h.
**
** Shadow tables of a table T in schema S (all names quoted with "%w"):
**
**   S.T_config(k TEXT PRIMARY KEY, v) WITHOUT ROWID
**       one row per setting:
**         version      INTEGER  shadow-table format version (3; 2 for
**                               tables made before the log, 1 before
**                               absent blocks)
**         seed         INTEGER  hash seed (the 64-bit value as int64)
**         bucket_size  INTEGER  2, 4 or 8: bucket size of new levels
**         variant      TEXT     'plain' or 'semisort': bucket encoding of
**                               new levels
**         error_rate   REAL     the table's target false-positive rate
**         growth       INTEGER  1: add a level when full; 0: refuse
**         capacity     INTEGER  capacity of level 0 as created
**         block_size   INTEGER  target bytes per block for new levels
**         cache_size   INTEGER  block-cache budget per connection (KiB)
**         cookie       INTEGER  bumped by every transaction that changes
**                               the table (cache validation)
**
**   S.T_levels(level INTEGER PRIMARY KEY, nbuckets, bucket_size, fp_bits,
**              flags, capacity, buckets_per_block, block_bytes, count)
**       one row per level 0..n-1: the level's filter geometry (as in the
**       BLOB header; its seed is the table's), how its buckets are cut
**       into blocks, and its item count.
**
**   S.T_blocks(id INTEGER PRIMARY KEY, data BLOB)
**       the bucket arrays.  Block j of level L has id L*2^32 + j and holds
**       buckets j*P .. j*P+P-1 of the level (P = buckets_per_block, a
**       multiple of 8), bit-packed exactly as the BLOB format's bucket
**       array (bucket j*P+i at bit i*B of the block, B bits per bucket), so
**       no bucket straddles two blocks and the blocks of a level, laid end
**       to end, are the level's BLOB bucket array.  A block present is
**       exactly block_bytes = P*B/8 bytes; buckets past the level's last
**       bucket (in its last block) stay zero.  Format 2: a block without
**       a row is empty (all zero), except the level's last block, which
**       always has its row (it marks the level's extent), so a level
**       costs one block until its blocks are written: creating it writes
**       the last block only, and the first flush of a block INSERTs its
**       row.  Format 1 (tables created before
**       format 2, still read and written as such): every block has a row,
**       a zeroblob from the level's creation on.
**
**   S.T_log(id INTEGER PRIMARY KEY, ops BLOB)          (format 3 only)
**       the operations (insert or remove a copy of a hash on a level)
**       made since the blocks and counts were last written, one row per
**       flush: the table is its blocks with the log applied in id order
**       (cuckoo_store_log.c).
**
** Rules:
**   1. An item is its 64-bit hash under the table's seed; the hash gives
**      the bucket and fingerprint on every level (cf_key_in), so the
**      hash alone (the vtab's rowid) is enough to find or delete a copy.
**      Each level, exported, is a valid BLOB-format filter for its items.
**   2. Inserts go to the last level.  With growth on, a level that reaches
**      its capacity (or refuses an insert) is followed by a new level of
**      twice its capacity at half its error rate (level k is built for
**      error_rate / 2^(k+1)), so the table's false-positive rate, at most
**      the sum over levels, stays below error_rate.  With growth off the
**      table has one level built for error_rate and a refused insert is a
**      "full" error that changes nothing.
**   3. Lookups probe every level.  Levels hash items independently, so
**      an item can match (falsely) on a level other than its own, where
**      the fingerprint belongs to another item.  Hence: a DELETE removes
**      a copy only from the single level where the item matches; an item
**      matching on several levels (about error_rate of them) is left in
**      place, a false positive, rather than risk removing another item's
**      copy and making it a false negative.  And an insert of an item that
**      already matches on an older level puts the new copy on that level
**      (if it has room), so that the copies of one item, which DELETE must
**      find, stay on one level; when that level answers "full" or "too
**      many copies", the last level takes the copy.
**   4. Changes are made to cached blocks in memory and written to the
**      shadow tables by ckst_flush() (with incremental BLOB I/O into the
**      rows present, an INSERT for a block without one): the virtual
**      table flushes in xSync and xSavepoint, and a full cache flushes
**      before it evicts.  Format 3: a flush writes one T_log row of the
**      operations instead, and the changed blocks stay cached and dirty
**      across commits until a merge writes them (cuckoo_store_log.c says
**      when); a full cache of a connection that is not writing drops
**      only its clean blocks.  ckst_discard() drops
**      everything in memory (xRollback, xRollbackTo): the journal has
**      already restored the shadow tables, and the next use reloads.
**      Level creation and import write their rows at once (format 2:
**      only the blocks that are not all zero).  The BLOB
**      handle is opened by a flush and closed before it returns, so none
**      is ever open across a statement, transaction or savepoint
**      boundary; reads go through a prepared SELECT that is reset after
**      every block (or, when a level's image is built, after the level's
**      range of blocks: see ckst_level in cuckoo_store_int.h).
**   5. ckst_refresh() validates the cache against other connections'
**      commits: PRAGMA data_version, and when that moved, the cookie.
**   6. Every shadow row is validated before use.  A missing, mistyped or
**      out-of-range value is SQLITE_CORRUPT_VTAB with a message naming the
**      table; no value read from a shadow table can cause an out-of-bounds
**      access or an oversized allocation beyond its row's real size.
**   7. Errors: functions return an SQLite result code and leave a message
**      (sqlite3_mprintf) in the store for the caller to take
**      (ckst_take_error).
*/
#ifndef CUCKOO_STORE_H
#define CUCKOO_STORE_H

#include "cuckoo_sql.h"

/* The format this build creates, and the oldest it reads and writes. */
#define CKST_FORMAT_VERSION 3
#define CKST_FORMAT_VERSION_MIN 1
#define CKST_MAX_LEVELS 32
#define CKST_DEFAULT_CAPACITY 100000
#define CKST_MIN_BLOCK 64
#define CKST_MAX_BLOCK (1 << 20)
#define CKST_DEFAULT_CACHE_KIB (256 * 1024)
#define CKST_MAX_CACHE_KIB ((sqlite3_int64)1 << 32)

/* Creation options of a table (parsed from the module arguments). */
typedef struct ckst_options {
  sqlite3_int64 capacity;
  double error_rate;
  int growth;
  int block_size; /* 0: from the database's page size */
  sqlite3_int64 cache_kib;
  cksql_options o; /* bucket_size, seed, variant */
} ckst_options;

/* A table's store (its insides: cuckoo_store_int.h). */
typedef struct ckstore ckstore;

/* Parse the module arguments into *pOpt (defaults for what is not
** given); on error *pzErr is a message (caller frees) naming zLabel. */
CUCKOO_PRIVATE int ckst_parse_args(const char *zLabel, int argc,
                                   const char *const *argv, ckst_options *pOpt,
                                   char **pzErr);

/* Allocate a store for an existing or new table (nothing is read);
** *ppStore is the caller's, released with ckst_free(). */
CUCKOO_PRIVATE int ckst_new(sqlite3 *db, const char *zDb, const char *zName,
                            ckstore **ppStore);
CUCKOO_PRIVATE void ckst_free(ckstore *p);
/* Take the message of the last error (caller frees), or NULL. */
CUCKOO_PRIVATE char *ckst_take_error(ckstore *p);

/* What the virtual table reads: the table's names (the strings belong to
** the store), the item hash under the table's seed (rule 1: the pointer
** is the store's for its lifetime, what it points to is valid after
** ckst_ready()) and the number of levels (valid after ckst_ready()). */
CUCKOO_PRIVATE const char *ckst_schema(const ckstore *p);
CUCKOO_PRIVATE const char *ckst_name(const ckstore *p);
CUCKOO_PRIVATE const char *
ckst_label(const ckstore *p); /* "cuckoo table [SCHEMA.]NAME" */
CUCKOO_PRIVATE const cksql_hasher *ckst_hasher(const ckstore *p);
CUCKOO_PRIVATE int ckst_levels(const ckstore *p);
/* True if zSuffix names one of the shadow tables (T_zSuffix). */
CUCKOO_PRIVATE int ckst_is_shadow(const char *zSuffix);

/* Create the shadow tables and an empty level 0. */
CUCKOO_PRIVATE int ckst_create(ckstore *p, const ckst_options *pOpt);
/* Load the configuration if not loaded; then (bRefresh) make sure the
** cache reflects other connections' commits. */
CUCKOO_PRIVATE int ckst_ready(ckstore *p, int bRefresh);

/*
** Item operations on the item's 64-bit hash (rules 1-3), which
** cksql_item_hash(ckst_hasher(p), ...) gives.  The store knows items only
** by their hashes: a refusal's message names the item through the
** caller's namer, xName(pArg), which returns the item's description
** ("42", "'abc'", "a BLOB"; sqlite3_mprintf'd, NULL if out of memory) and
** is called only to build that message, before the call returns.
**
** ckst_insert() fails with a "full" or "too many copies" message (naming
** the item through pName, or "an item" when pName is NULL) and changes
** nothing; ckst_remove() sets *pRemoved when a copy was removed;
** ckst_replace() removes a copy of hOld and inserts hNew, and if that
** insert fails it puts the removed copy back and reports the failure.
*/
typedef struct ckst_namer {
  char *(*xName)(void *pArg);
  void *pArg;
} ckst_namer;
CUCKOO_PRIVATE int ckst_contains(ckstore *p, uint64_t hash, int *pFound);
CUCKOO_PRIVATE int ckst_insert(ckstore *p, uint64_t hash,
                               const ckst_namer *pName);
CUCKOO_PRIVATE int ckst_remove(ckstore *p, uint64_t hash, int *pRemoved);
CUCKOO_PRIVATE int ckst_replace(ckstore *p, uint64_t hOld, uint64_t hNew,
                                const ckst_namer *pName);

/*
** Pending inserts (cuckoo_store_defer.c): ckst_insert() deferred, for
** every INSERT shape the virtual table sees.  ckst_insert_later() hashes
** the item (cksql_item_hash under the table's seed: *pHash) and records
** its hash and what names it in a message (24 bytes, plus the first
** bytes of a TEXT item); ckst_drain() places every pending item in order,
** exactly as one ckst_insert() after another would, with the memory
** accesses of successive items overlapped.  Every other item operation,
** ckst_ready() with bRefresh, ckst_flush(), ckst_savepoint() and
** ckst_import() drain first, so nothing reads the store without the
** pending items; ckst_discard() drops them.  A failure (a "full" table or
** "too many copies", naming the item) is reported by whichever of these
** drains; a failed item and the ones after it stay pending until
** ckst_discard().
**
** mFlags:
**   CKST_LATER_TXN        the row is inside an explicit transaction: it is
**                         only recorded where no later drain can refuse it
**                         (cuckoo_store_defer.c, "Refusals"); an item that
**                         could be refused is placed at once (the result
**                         is ckst_insert()'s); with growth off, -1.
**   CKST_LATER_IF_ABSENT  OR IGNORE / OR REPLACE: an item probably present
**                         (it matches a level, or a pending item's
**                         fingerprint and buckets on the newest level) is
**                         SQLITE_DONE, not inserted.
** Returns SQLITE_OK (recorded), SQLITE_DONE (above), an error, or -1:
** nothing done (the store is not loaded, the item is NULL, a bound is
** reached, or the rule above): the caller takes its general path, which
** drains and places the item at once.  Bounds per table: CKST_PEND_MAX
** items, CKST_PEND_TEXT_MAX bytes of TEXT.
*/
#define CKST_PEND_MAX 65536
#define CKST_PEND_TEXT_MAX (1 << 22)
#define CKST_LATER_TXN 1
#define CKST_LATER_IF_ABSENT 2
CUCKOO_PRIVATE int ckst_insert_later(ckstore *p, sqlite3_value *pItem,
                                     int mFlags, uint64_t *pHash);
CUCKOO_PRIVATE int ckst_drain(ckstore *p);

/* Transaction boundaries (rule 4): ckst_flush() writes the changes made in
** memory to the shadow tables; ckst_discard() forgets everything held in
** memory; ckst_commit() ends the transaction's cookie bump. */
CUCKOO_PRIVATE int ckst_flush(ckstore *p);
/* ckst_flush() at a savepoint (xSavepoint): if it fails with items still
** pending, they are older than the savepoint, and a rollback to it that
** drops them makes every later flush fail until ckst_rollback(). */
CUCKOO_PRIVATE int ckst_savepoint(ckstore *p);
CUCKOO_PRIVATE void ckst_discard(ckstore *p);
CUCKOO_PRIVATE void ckst_commit(ckstore *p);
/* ckst_discard() at the rollback of the whole transaction: also forgets
** that a drain failed (until then ckst_flush() fails, so that a savepoint
** rollback that dropped a failed statement's pending inserts cannot let
** the transaction commit without them). */
CUCKOO_PRIVATE void ckst_rollback(ckstore *p);

/* ALTER TABLE RENAME and DROP TABLE of the shadow tables.  ckst_finalize()
** releases the prepared statements (they are prepared again on use). */
CUCKOO_PRIVATE int ckst_rename(ckstore *p, const char *zNewName);
CUCKOO_PRIVATE int ckst_drop(ckstore *p);
CUCKOO_PRIVATE void ckst_finalize(ckstore *p);

/* Level iLevel (0 <= iLevel < ckst_levels()) as a BLOB-format filter:
** *paOut is sqlite3_malloc64'd, the caller's to free. */
CUCKOO_PRIVATE int ckst_export(ckstore *p, int iLevel, uint8_t **paOut,
                               sqlite3_int64 *pnOut);
/* Load a BLOB-format filter: it replaces an empty table's levels, or is
** appended as a new last level. */
CUCKOO_PRIVATE int ckst_import(ckstore *p, const void *aBlob, int nBlob);
/* Verify every shadow row; *pzReport (caller frees) is "ok" or the
** problems found, one a line. */
CUCKOO_PRIVATE int ckst_check(ckstore *p, char **pzReport);
/* JSON description of the table (sqlite3_mprintf'd, caller frees). */
CUCKOO_PRIVATE int ckst_info(ckstore *p, char **pzJson);

/*
** Browsing.  A scan visits every stored fingerprint: levels in order,
** buckets in order, slots in order.  ckst_scan_next() moves to the next
** one (s->bEof at the end); the fields then say where it is and
** s->aFp[s->iSlot] is the fingerprint.  ckst_locate() points *s at the
** fingerprint an item hash matches (its newest level; bEof if none).
** ckst_scan_hash() gives a hash that stands for the scan's current
** fingerprint: it maps to that bucket and fingerprint on that level, so
** removing it (ckst_remove) removes a copy of that fingerprint from that
** level; different stored fingerprints get different hashes.  A hash
** that also matches another level (where ckst_remove would refuse it) is
** pinned to the scan's level until ckst_scan_end(), which the caller
** calls when its last scan is over.
*/
typedef struct ckst_scan {
  int iLevel;
  uint64_t iBucket;
  int iSlot;
  int bLoaded; /* aFp holds bucket iBucket */
  int bEof;
  uint32_t aFp[CF_MAX_BUCKET_SIZE];
} ckst_scan;
CUCKOO_PRIVATE void ckst_scan_start(ckst_scan *s);
CUCKOO_PRIVATE int ckst_scan_next(ckstore *p, ckst_scan *s);
CUCKOO_PRIVATE int ckst_scan_hash(ckstore *p, const ckst_scan *s,
                                  uint64_t *pHash);
CUCKOO_PRIVATE void ckst_scan_end(ckstore *p);
CUCKOO_PRIVATE int ckst_locate(ckstore *p, uint64_t hash, ckst_scan *s);
/* Items stored (the sum of the levels' counts; no block is read). */
CUCKOO_PRIVATE sqlite3_int64 ckst_total(const ckstore *p);
/* Copies of the fingerprint in its two buckets: of the scan's current
** fingerprint on its level, or of an item on every level (summed). */
CUCKOO_PRIVATE int ckst_scan_copies(ckstore *p, const ckst_scan *s,
                                    sqlite3_int64 *pn);
CUCKOO_PRIVATE int ckst_copies(ckstore *p, uint64_t hash, sqlite3_int64 *pn);
/* Format 3: write every block and count the log changed and delete the
** log rows (docs/format.md#the-log); a table of format 1 or 2 has no log
** (nothing to do).  Pending inserts are placed first. */
CUCKOO_PRIVATE int ckst_merge(ckstore *p);
/* Empty the table: drop every level and block, and create an empty level
** 0 as the table was created (one DELETE per shadow table). */
CUCKOO_PRIVATE int ckst_delete_all(ckstore *p);

#endif /* CUCKOO_STORE_H */
