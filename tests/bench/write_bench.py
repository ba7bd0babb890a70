#!/usr/bin/env python3
# Copyright (c) 2026 the cuckoo authors.  MIT License: see LICENSE.
#
# write_bench.py: the last of the write shapes (the others are in
# write_bench.c): executemany() of 3*10^5 integers with Python's sqlite3
# module in its default transaction handling (it opens a transaction
# before the first INSERT; commit() ends it), into a cuckoo table sized
# for them against a heap table, ./cuckoo.so (or $CUCKOO_EXT) loaded with
# load_extension as users load it.  As in write_bench.c, each run is a new
# user's: a process of its own (this script again, with --run) on a new
# file database in build/bench/, the default journal, the whole
# transaction timed (CPU seconds of that process); the median of 3 (or
# of BENCH_RUNS, 1 to 15) with the two sides taking turns; once with a
# page cache of 1 GiB, once with SQLite's default.  Each is printed as a
# row of write_bench.c's tables with the target (<= 1.0x).  BENCH_SCALE
# (default 1) divides the size.
import os
import sqlite3
import statistics
import subprocess
import sys
import time

DB = "build/bench/write_bench_py.db"


def remove_db():
    for f in (DB, DB + "-journal", DB + "-wal", DB + "-shm"):
        if os.path.exists(f):
            os.remove(f)


def run(side, cache_kib, n, ext):
    """One run (in its own process): prints its CPU seconds."""
    remove_db()
    db = sqlite3.connect(DB)
    db.enable_load_extension(True)
    db.load_extension(os.path.splitext(ext)[0] if ext.endswith(".so") else ext)
    if cache_kib:
        db.execute("PRAGMA cache_size=-%d" % cache_kib)
    if side == "heap":
        db.execute("CREATE TABLE heap(item)")
        insert = "INSERT INTO heap(item) VALUES (?)"
    else:
        db.execute("CREATE VIRTUAL TABLE seen USING cuckoo(capacity=%d)" % n)
        insert = "INSERT INTO seen(item) VALUES (?)"
    db.commit()
    rows = [(i,) for i in range(1, n + 1)]
    t0 = time.process_time()
    db.executemany(insert, rows)
    db.commit()
    t = time.process_time() - t0
    if side == "table":
        got = db.execute("SELECT json_extract(cuckoo_table_info('seen'), "
                         "'$.count')").fetchone()[0]
        if got != n:
            print("write_bench.py: the table holds %s items, not %d"
                  % (got, n), file=sys.stderr)
            return 1
    db.close()
    remove_db()
    print(t)
    return 0


def main():
    scale = max(1, int(os.environ.get("BENCH_SCALE", "1") or 1))
    ext = os.environ.get("CUCKOO_EXT", "./cuckoo.so")
    n = 300000 // scale
    if len(sys.argv) == 4 and sys.argv[1] == "--run":
        return run(sys.argv[2], int(sys.argv[3]), n, ext)
    runs_env = os.environ.get("BENCH_RUNS", "") or "3"
    runs = int(runs_env) if runs_env.isdigit() else 0
    if not 1 <= runs <= 15:
        print("write_bench.py: BENCH_RUNS is %s: give a number of runs "
              "from 1 to 15" % runs_env, file=sys.stderr)
        return 1
    if not hasattr(sqlite3.connect(":memory:"), "enable_load_extension"):
        print("write_bench.py: this Python cannot load extensions; skipped")
        return 0
    for cache_kib, label in ((1 << 20, "1 GiB cache"), (0, "default cache")):
        times = {"heap": [], "table": []}
        for _ in range(runs):
            for side in ("heap", "table"):
                out = subprocess.run(
                    [sys.executable, __file__, "--run", side, str(cache_kib)],
                    capture_output=True, text=True)
                if out.returncode != 0:
                    sys.stderr.write(out.stderr)
                    return 1
                times[side].append(float(out.stdout))
        ours = statistics.median(times["table"])
        alt = statistics.median(times["heap"])
        r = ours / alt if alt > 0 else 0
        what = ("executemany %d ints, Python's default transaction, %s: "
                "table / heap" % (n, label))
        print("| %-66s | %8.3f s | %8.3f s | %6.2fx | <= 1.00x | %-3s |"
              % (what, ours, alt, r, "yes" if r <= 1.0 else "no"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
