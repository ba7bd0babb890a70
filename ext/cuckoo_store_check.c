/*
** Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
**
** cuckoo_store_check.c: what cuckoo_check() and PRAGMA integrity_check
** report on a cuckoo table (every shadow row against the rules of
** cuckoo_store.h, problems one a line, at most CKST_MAX_PROBLEMS of them),
** and the JSON description cuckoo_table_info() returns.
*/
#include "cuckoo_store_int.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#define CKST_MAX_PROBLEMS 100

typedef struct ckst_report {
  sqlite3_str *pStr;
  int nProblem;
} ckst_report;

/* Add one problem line to the report (the first CKST_MAX_PROBLEMS are
** kept; the rest only counted). */
static void ckst_problem(ckst_report *r, const char *zFmt, ...) {
  va_list ap;
  r->nProblem++;
  if (r->nProblem > CKST_MAX_PROBLEMS) return;
  if (r->nProblem > 1) sqlite3_str_append(r->pStr, "\n", 1);
  va_start(ap, zFmt);
  sqlite3_str_vappendf(r->pStr, zFmt, ap);
  va_end(ap);
}

/* Is rc an error of the database rather than of the table's rows (out
** of memory, I/O, a full disk, a lock, an interrupt)?  The check fails
** with it, as any statement would: reading a shadow table can need a
** write (SQLite's page cache spilling inside a transaction), which can
** end with SQLITE_FULL, after which SQLite has rolled the transaction
** back.  Every other failure to read the rows is a problem it reports. */
static int ckst_check_fatal(int rc) {
  switch (rc & 0xff) {
  case SQLITE_NOMEM:
  case SQLITE_IOERR:
  case SQLITE_FULL:
  case SQLITE_BUSY:
  case SQLITE_LOCKED:
  case SQLITE_INTERRUPT:
  case SQLITE_ABORT:
    return 1;
  default:
    return 0;
  }
}

/* Report blocks from .. to-1 of level iLevel as missing. */
static void ckst_missing(ckst_report *r, ckstore *p, int iLevel, uint64_t from,
                         uint64_t to) {
  if (to - from == 1) {
    ckst_problem(r,
                 "%s: block %d.%llu (id %lld of %s_" CKST_BLOCKS ") is missing",
                 p->zLabel, iLevel, (unsigned long long)from,
                 (sqlite3_int64)CKST_ID(iLevel, from), p->zName);
  } else {
    ckst_problem(r, "%s: blocks %d.%llu to %d.%llu are missing", p->zLabel,
                 iLevel, (unsigned long long)from, iLevel,
                 (unsigned long long)(to - 1));
  }
}

/* Check every block row (format 2: a block without a row is empty, and
** counts no slot; format 1: it is missing). */
static int ckst_check_blocks(ckstore *p, ckst_report *r) {
  uint64_t aNext[CKST_MAX_LEVELS], aSlots[CKST_MAX_LEVELS];
  sqlite3_stmt *pStmt = 0;
  uint32_t k;
  int i, rc;

  memset(aNext, 0, sizeof(aNext));
  memset(aSlots, 0, sizeof(aSlots));
  rc = ckst_read_stmt(p, CKST_ALL_BLOCKS, CKST_BLOCKS, &pStmt);
  if (rc == SQLITE_CORRUPT_VTAB) {
    ckst_problem(r, "%s", p->zErr);
    sqlite3_free(ckst_take_error(p));
    return SQLITE_OK;
  }
  if (rc != SQLITE_OK) return rc;
  while ((rc = sqlite3_step(pStmt)) == SQLITE_ROW) {
    sqlite3_int64 id = sqlite3_column_int64(pStmt, 0);
    int iLevel = (int)(id >> 32);
    uint64_t j = (uint64_t)id & 0xffffffff;
    const ckst_level *pL;
    const uint8_t *a;
    ckst_block *b;
    int eType, n;
    if (id < 0 || iLevel >= p->nLevel) {
      ckst_problem(r,
                   "%s: row id %lld of %s_" CKST_BLOCKS " belongs to no level",
                   p->zLabel, id, p->zName);
      continue;
    }
    pL = &p->aLevel[iLevel];
    if (j >= pL->nBlock) {
      ckst_problem(r,
                   "%s: row id %lld of %s_" CKST_BLOCKS
                   " is past the last block "
                   "of level %d",
                   p->zLabel, id, p->zName, iLevel);
      continue;
    }
    if (j > aNext[iLevel] && p->version < 2) {
      ckst_missing(r, p, iLevel, aNext[iLevel], j);
    }
    aNext[iLevel] = j + 1;
    eType = sqlite3_column_type(pStmt, 1);
    a = (const uint8_t *)sqlite3_column_blob(pStmt, 1);
    n = sqlite3_column_bytes(pStmt, 1);
    if (eType != SQLITE_BLOB) {
      ckst_problem(r, "%s: block %d.%llu is %s, not a BLOB", p->zLabel, iLevel,
                   (unsigned long long)j, ckst_type_name(eType));
      continue;
    }
    if ((uint32_t)n != pL->nBytes) {
      ckst_problem(r, "%s: block %d.%llu has %d bytes, expected %u", p->zLabel,
                   iLevel, (unsigned long long)j, n, pL->nBytes);
      continue;
    }
    if (a == 0) {
      rc = SQLITE_NOMEM;
      break;
    }
    /* Unflushed changes of this connection count; clean cached copies
    ** do not (the row is what is checked). */
    b = ckst_cache_find(p, (uint64_t)id);
    if (b && b->bDirty) a = b->a;
    if (!ckst_zero_from(a, pL->nBytes,
                        ckst_buckets_in(pL, j) * cf_bucket_bits(&pL->p))) {
      ckst_problem(r,
                   "%s: block %d.%llu has bits set past the level's last "
                   "bucket",
                   p->zLabel, iLevel, (unsigned long long)j);
    }
    aSlots[iLevel] +=
        cf_region_slots(&pL->p, a, pL->nBytes, ckst_buckets_in(pL, j));
  }
  if (rc == SQLITE_DONE) {
    rc = SQLITE_OK;
  } else if (!ckst_check_fatal(rc)) {
    ckst_problem(r, "%s: cannot read %s_" CKST_BLOCKS ": %s", p->zLabel,
                 p->zName, sqlite3_errmsg(p->db));
    rc = SQLITE_OK;
  } else {
    rc = ckst_sqlerr(p, rc); /* (out of memory: as it is) */
  }
  sqlite3_reset(pStmt);
  for (k = 0; k < p->nDirty; k++) {
    /* unflushed blocks that have no row yet count too */
    const ckst_block *b = ckst_cache_find(p, p->aDirty[k]);
    if (b && b->bDirty && b->bAbsent) {
      const ckst_level *pL = &p->aLevel[b->id >> 32];
      aSlots[b->id >> 32] += cf_region_slots(
          &pL->p, b->a, pL->nBytes, ckst_buckets_in(pL, b->id & 0xffffffff));
    }
  }
  for (i = 0; rc == SQLITE_OK && i < p->nLevel; i++) {
    const ckst_level *pL = &p->aLevel[i];
    if (aNext[i] < pL->nBlock && p->version < 2) {
      ckst_missing(r, p, i, aNext[i], pL->nBlock);
    }
    if (aSlots[i] != pL->nCount) {
      ckst_problem(r,
                   "%s: level %d has an item count of %llu but %llu "
                   "slots in use",
                   p->zLabel, i, (unsigned long long)pL->nCount,
                   (unsigned long long)aSlots[i]);
    }
  }
  return rc;
}

/* cuckoo_check(): reload from the rows (unless this connection has
** unflushed changes) and check every block; problems are the report,
** not an error. */
int ckst_check(ckstore *p, char **pzReport) {
  ckst_report r;
  int rc;
  *pzReport = 0;
  r.pStr = sqlite3_str_new(p->db);
  r.nProblem = 0;
  /* Validate the rows as they are now, not as first loaded (unless this
  ** connection has changes not yet written to them). */
  if ((p->version >= 3 || p->nDirty == 0) && !ckst_log_writing(p)) {
    ckst_discard(p);
  }
  rc = ckst_ready(p, 1);
  if (rc == SQLITE_OK) {
    rc = ckst_check_blocks(p, &r);
  } else if (!ckst_check_fatal(rc) && p->zErr) {
    ckst_problem(&r, "%s", p->zErr);
    sqlite3_free(ckst_take_error(p));
    rc = SQLITE_OK;
  }
  if (r.nProblem > CKST_MAX_PROBLEMS) {
    sqlite3_str_appendf(r.pStr, "\n... and %d more problems",
                        r.nProblem - CKST_MAX_PROBLEMS);
  }
  if (r.nProblem == 0) sqlite3_str_appendall(r.pStr, "ok");
  if (rc == SQLITE_OK) rc = sqlite3_str_errcode(r.pStr);
  *pzReport = sqlite3_str_finish(r.pStr);
  if (rc != SQLITE_OK) {
    sqlite3_free(*pzReport);
    *pzReport = 0;
  }
  return rc;
}

/* ---------------------------------------------------------------------
** Description
*/

static double ckst_level_fpr(const ckst_level *pL) {
  double slots = (double)pL->p.nbuckets * pL->p.bucket_size;
  double per = 1.0 / (ldexp(1.0, (int)pL->p.fp_bits) - 1.0);
  return 1.0 -
         pow(1.0 - per * (double)pL->nCount / slots, 2.0 * pL->p.bucket_size);
}

/* cuckoo_table_info(): the configuration, totals and one object per
** level, as JSON. */
int ckst_info(ckstore *p, char **pzJson) {
  sqlite3_str *s = sqlite3_str_new(p->db);
  uint64_t nCount = 0, nCap = 0, nBlock = 0, nBytes = 0;
  double fpr = 0.0;
  int i, rc;
  for (i = 0; i < p->nLevel; i++) {
    const ckst_level *pL = &p->aLevel[i];
    nCount += pL->nCount;
    nCap += pL->p.capacity;
    nBlock += pL->nBlock;
    nBytes += pL->nBlock * pL->nBytes;
    fpr += ckst_level_fpr(pL);
  }
  sqlite3_str_appendf(
      s,
      "{\"version\":%d,\"variant\":\"%s\",\"count\":%llu,\"capacity\":%llu,"
      "\"error_rate\":%!.6g,\"growth\":%s,\"bucket_size\":%u,\"seed\":%llu,"
      "\"levels\":%d,\"blocks\":%llu,\"bytes\":%llu,\"expected_fpr\":%!.6g,"
      "\"block_size\":%d,\"cache_size\":%lld,\"cached_blocks\":%u,"
      "\"blocks_read\":%lld,\"level\":[",
      p->version, p->flags ? "semisort" : "plain", (unsigned long long)nCount,
      (unsigned long long)nCap, p->errorRate, p->growth ? "true" : "false",
      p->bucketSize, (unsigned long long)p->hasher.seed, p->nLevel,
      (unsigned long long)nBlock, (unsigned long long)nBytes, fpr, p->blockSize,
      p->cacheKib, p->nEntry, p->nBlockRead);
  for (i = 0; i < p->nLevel; i++) {
    const ckst_level *pL = &p->aLevel[i];
    sqlite3_str_appendf(
        s,
        "%s{\"capacity\":%llu,\"count\":%llu,\"buckets\":%llu,"
        "\"bucket_size\":%u,\"fingerprint_bits\":%u,\"variant\":\"%s\","
        "\"blocks\":%llu,\"block_bytes\":%u,\"expected_fpr\":%!.6g}",
        i ? "," : "", (unsigned long long)pL->p.capacity,
        (unsigned long long)pL->nCount, (unsigned long long)pL->p.nbuckets,
        pL->p.bucket_size, pL->p.fp_bits,
        (pL->p.flags & CF_FLAG_SEMISORT) ? "semisort" : "plain",
        (unsigned long long)pL->nBlock, pL->nBytes, ckst_level_fpr(pL));
  }
  sqlite3_str_append(s, "]}", 2);
  rc = sqlite3_str_errcode(s);
  *pzJson = sqlite3_str_finish(s);
  if (rc != SQLITE_OK) {
    sqlite3_free(*pzJson);
    *pzJson = 0;
  }
  return rc;
}
