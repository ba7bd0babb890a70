#!/usr/bin/env python3
# Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
#
# write_bench.py: the last of the write shapes (the others are in
# write_bench.c): executemany() of 3*10^5 integers with Python's sqlite3
# module in its default transaction handling (it opens a transaction
# before the first INSERT; commit() ends it), into a cuckoo table sized
# for them against a heap table, a file database in build/bench/, the
# default page cache and journal, ./cuckoo.so (or $CUCKOO_EXT) loaded with
# load_extension as users load it.  The whole transaction is timed (CPU
# seconds of this process, as bench.h), the median of 3 with the two sides
# taking turns, printed as a row of write_bench.c's table with the target
# (<= 1.0x).  BENCH_SCALE (default 1) divides the size.
import os
import sqlite3
import statistics
import sys
import time

DB = "build/bench/write_bench_py.db"


def main():
    scale = max(1, int(os.environ.get("BENCH_SCALE", "1") or 1))
    ext = os.environ.get("CUCKOO_EXT", "./cuckoo.so")
    n = 300000 // scale
    rows = [(i,) for i in range(1, n + 1)]
    for f in (DB, DB + "-journal"):
        if os.path.exists(f):
            os.remove(f)
    db = sqlite3.connect(DB)
    if not hasattr(db, "enable_load_extension"):
        print("write_bench.py: this Python cannot load extensions; skipped")
        return 0
    db.enable_load_extension(True)
    db.load_extension(os.path.splitext(ext)[0] if ext.endswith(".so") else ext)
    sides = {
        "heap": ("DROP TABLE IF EXISTS heap", "CREATE TABLE heap(item)",
                 "INSERT INTO heap(item) VALUES (?)"),
        "table": ("DROP TABLE IF EXISTS seen",
                  "CREATE VIRTUAL TABLE seen USING cuckoo(capacity=%d)" % n,
                  "INSERT INTO seen(item) VALUES (?)"),
    }
    times = {"heap": [], "table": []}
    for _ in range(3):
        for name in ("heap", "table"):
            drop, create, insert = sides[name]
            db.execute(drop)
            db.execute(create)
            db.commit()
            t0 = time.process_time()
            db.executemany(insert, rows)
            db.commit()
            times[name].append(time.process_time() - t0)
    got = db.execute(
        "SELECT json_extract(cuckoo_table_info('seen'), '$.count')").fetchone()[0]
    if got != n:
        print("write_bench.py: the table holds %s items, not %d" % (got, n))
        return 1
    db.close()
    os.remove(DB)
    ours = statistics.median(times["table"])
    alt = statistics.median(times["heap"])
    r = ours / alt if alt > 0 else 0
    what = "executemany %d ints, Python's default transaction: table / heap" % n
    print("| %-66s | %8.3f s | %8.3f s | %6.2fx | <= 1.00x | %-3s |"
          % (what, ours, alt, r, "yes" if r <= 1.0 else "no"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
