#!/usr/bin/python3
"""native.py: what the native extension says, for the WebAssembly tests
(tests/wasm/run.sh, make test-wasm).  Part of cuckoo (MIT License, see
LICENSE).

    /usr/bin/python3 tests/wasm/native.py EXT OUT.json OUT.db
    /usr/bin/python3 tests/wasm/native.py --check EXT NATIVE.json WASM.db

The first form loads EXT (./cuckoo.so) into Debian's python3 sqlite3 and
writes OUT.json: the SQL cases of tests/wasm/cases.json with their rows,
filter BLOBs made by SQL (item by item, and by cuckoo_agg) with the answers
of cuckoo_contains and cuckoo_count for a list of probes (an SQL case that
fails records SQLite's message instead of rows), mutated BLOBs
with the native verdict, and the database OUT.db (a grown cuckoo table)
with its query rows.  tests/wasm/cases.mjs compares every value and byte
of the WebAssembly builds with these, in Node and in Chromium.

--check opens a database written by the WebAssembly SQLite (export()) and
prints one line per query: "ok: ..." when its rows are the native rows,
else "FAILED: ...".

Values are tagged in JSON so that nothing is lost: null, {"i": "123"}
(INTEGER as a decimal string), {"r": 0.5} (REAL; "inf", "-inf" and "-0"
as strings), {"t": "text"}, {"b": "hex"}.
"""
import base64
import json
import math
import os
import random
import sqlite3
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def tag(v):
    if v is None:
        return None
    if isinstance(v, bool):
        raise TypeError(v)
    if isinstance(v, int):
        return {"i": str(v)}
    if isinstance(v, float):
        if math.isinf(v):
            return {"r": "inf" if v > 0 else "-inf"}
        if v == 0 and math.copysign(1, v) < 0:
            return {"r": "-0"}
        return {"r": v}
    if isinstance(v, str):
        return {"t": v}
    return {"b": bytes(v).hex()}


def connect(ext, path=":memory:"):
    con = sqlite3.connect(path, isolation_level=None)
    con.enable_load_extension(True)
    con.load_extension(ext)
    return con


def rows(con, sql):
    """Runs a script; the rows of its last statement, tagged."""
    out = []
    for s in split_sql(sql):
        out = [[tag(v) for v in r] for r in con.execute(s).fetchall()]
    return out


def split_sql(sql):
    buf = ""
    for part in sql.split(";"):
        buf += part + ";"
        if sqlite3.complete_statement(buf) and buf.strip(" \n;"):
            yield buf.strip()
            buf = ""
    if buf.strip(" \n;"):
        yield buf.strip()


# Items of every kind (docs/format.md, "Item identity"), then many more.
def items():
    out = ["alice", "h\u00e9llo w\u00f6rld", "\u65e5\u672c", "it's", "", "42",
           0, 42, -1, 9007199254740993, -9223372036854775808,
           9223372036854775807, 0.5, -3.75, 42.0, -0.0, math.inf, -math.inf,
           1e300, 2.0 ** 70, b"", b"\x00", b"\xde\xad\xbe\xef"]
    rnd = random.Random(26)
    for i in range(1500):
        k = i % 4
        if k == 0:
            out.append("user-%d" % rnd.randrange(10 ** 9))
        elif k == 1:
            out.append(rnd.randrange(-2 ** 63, 2 ** 63))
        elif k == 2:
            out.append(rnd.random() * 10 ** rnd.randrange(-5, 20))
        else:
            out.append(bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 40))))
    return out


def probes(its):
    rnd = random.Random(27)
    out = list(its[:40]) + [42.0, 42, -0.0, 0, "42", b"42", "bob", 43, 0.25]
    for i in range(3000):
        out.append(rnd.choice([
            "user-%d" % rnd.randrange(10 ** 9), rnd.randrange(-2 ** 63, 2 ** 63),
            rnd.random(), bytes([rnd.randrange(256)]) * rnd.randrange(1, 9)]))
    return out


# The geometries of the filter cases: (name, capacity, error_rate, SQL
# options, JavaScript options).
FILTERS = [
    ("default", 2000, None, None, None),
    ("b8-seed7", 2000, 0.01, "bucket_size=8, seed=7", {"bucketSize": 8, "seed": 7}),
    ("b2", 3000, 0.001, "bucket_size=2", {"bucketSize": 2}),
    ("semisort", 2000, 0.0001, "semisort", {"variant": "semisort"}),
    ("seed-max", 1800, 0.02, "seed=18446744073709551615",
     {"seed": {"big": "18446744073709551615"}}),
    ("tiny-full", 3, 0.1, None, None),
]


def filter_cases(con, its, prs):
    out = []
    for name, cap, rate, sqlopts, jsopts in FILTERS:
        args = [cap, rate, sqlopts] if sqlopts else ([cap, rate] if rate else [cap])
        blob = con.execute("SELECT cuckoo_new(%s)" % ",".join("?" * len(args)),
                           args).fetchone()[0]
        added = []
        full_at = None
        for n, it in enumerate(its):
            try:
                blob = con.execute("SELECT cuckoo_add(?, ?)", (blob, it)).fetchone()[0]
                added.append(n)
            except sqlite3.OperationalError as e:
                full_at = n
                assert "full" in str(e) or "too many" in str(e), e
                break
        removed = list(range(0, len(added), 7))
        after = blob
        for n in removed:
            after = con.execute("SELECT cuckoo_remove(?, ?)", (after, its[n])).fetchone()[0]
        contains = [con.execute("SELECT cuckoo_contains(?, ?)", (blob, p)).fetchone()[0]
                    for p in prs]
        counts = [con.execute("SELECT cuckoo_count(?, ?)", (blob, p)).fetchone()[0]
                  for p in prs[:200]]
        info = json.loads(con.execute("SELECT cuckoo_info(?)", (blob,)).fetchone()[0])
        info["seed"] = str(info["seed"])  # beyond 2^53: exact as text
        out.append({"name": name, "capacity": cap, "error_rate": rate,
                    "sql_options": sqlopts, "js_options": jsopts,
                    "added": len(added), "full_at": full_at,
                    "blob": blob.hex(), "removed": removed, "after": after.hex(),
                    "contains": contains, "counts": counts, "info": info})
    return out


def agg_cases(con, its, prs):
    out = []
    con.execute("CREATE TEMP TABLE it(n INTEGER PRIMARY KEY, v)")
    con.executemany("INSERT INTO it VALUES (?, ?)", enumerate(its))
    for name, sql in [
        ("agg", "SELECT cuckoo_agg(v) FROM it"),
        ("agg-semisort-seed", "SELECT cuckoo_agg(v, 0.001, NULL, 'semisort, seed=99') FROM it"),
        ("agg-b8", "SELECT cuckoo_agg(v, 0.01, 4000, 'bucket_size=8') FROM it WHERE n % 3 = 0"),
    ]:
        blob = con.execute(sql).fetchone()[0]
        contains = [con.execute("SELECT cuckoo_contains(?, ?)", (blob, p)).fetchone()[0]
                    for p in prs]
        out.append({"name": name, "sql": sql, "blob": blob.hex(), "contains": contains})
    return out


def malformed(con):
    """Mutations of a valid BLOB, each with the native verdict: null if
    cuckoo_count() accepts it, else the reason after 'valid cuckoo filter: '."""
    base = con.execute("SELECT cuckoo_add(cuckoo_new(100), 'a', 'b', 3)").fetchone()[0]
    rnd = random.Random(28)
    cases = [b"", b"\x00", base[:39], base[:40], base[:-1], base + b"\x00",
             b"CKOO" + base[4:], b"XKOO" + base[4:]]
    for i in range(300):
        b = bytearray(base)
        for _ in range(rnd.randrange(1, 4)):
            if rnd.random() < 0.8:
                b[rnd.randrange(40)] = rnd.randrange(256)
            else:
                b[rnd.randrange(len(b))] ^= 1 << rnd.randrange(8)
        if rnd.random() < 0.1:
            b = b[:rnd.randrange(len(b) + 1)]
        cases.append(bytes(b))
    # Headers that promise huge tables in a short BLOB.
    huge = bytearray(base)
    huge[8:16] = struct.pack("<Q", 2 ** 32 - 2)
    cases.append(bytes(huge))
    out = []
    for b in cases:
        try:
            con.execute("SELECT cuckoo_count(?)", (b,)).fetchone()
            why = None
        except sqlite3.OperationalError as e:
            msg = str(e)
            key = "not a valid cuckoo filter: "
            why = msg[msg.index(key) + len(key):] if key in msg else msg
        out.append({"hex": b.hex(), "why": why})
    return out


# The virtual table: one that grows (capacity 100, 3000 rows), some rows
# deleted; QUERIES read it, its shadow tables included.
VTAB_SCRIPT = """
CREATE VIRTUAL TABLE seen USING cuckoo(capacity=100, error_rate=0.01, seed=5);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
INSERT INTO seen(item) SELECT CASE i % 3 WHEN 0 THEN 'user-' || i
  WHEN 1 THEN i * 7919 ELSE CAST(i AS REAL) + 0.5 END FROM n;
DELETE FROM seen WHERE item IN ('user-3', 7919, 2.5, 'user-300');
CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB NOT NULL);
INSERT INTO filters VALUES ('taken', cuckoo_add(cuckoo_new(1000), 'alice', 'bob', 42));
"""
QUERIES = [
    ("levels", "SELECT level, nbuckets, bucket_size, fp_bits, flags, capacity, "
     "buckets_per_block, block_bytes, count FROM seen_levels ORDER BY level"),
    ("blocks", "SELECT id, hex(data) FROM seen_blocks ORDER BY id"),
    ("config", "SELECT k, v FROM seen_config ORDER BY k"),
    ("probe-hits", "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
     "WHERE i < 6000) SELECT count(*) FROM n WHERE EXISTS (SELECT 1 FROM seen "
     "WHERE item = CASE n.i % 3 WHEN 0 THEN 'user-' || n.i WHEN 1 THEN n.i * 7919 "
     "ELSE CAST(n.i AS REAL) + 0.5 END)"),
    ("deleted", "SELECT count(*) FROM seen WHERE item IN ('user-3', 7919, 2.5, 'user-300')"),
    ("copies", "SELECT copies FROM seen WHERE item = 'user-6'"),
    ("check", "SELECT cuckoo_check('seen')"),
    ("filters", "SELECT name, hex(f), cuckoo_contains(f, 'bob'), cuckoo_contains(f, 'carol') "
     "FROM filters"),
]


def main(argv):
    if len(argv) == 5 and argv[1] == "--check":
        _, _, ext, native, wasmdb = argv
        want = json.load(open(native))["vtab"]["rows"]
        con = connect(ext, wasmdb)
        fails = 0
        for name, sql in QUERIES:
            got = rows(con, sql)
            if got == want[name]:
                print("ok: native SQLite reads the WebAssembly database %s: %s" % (os.path.basename(wasmdb), name))
            else:
                fails += 1
                print("FAILED: native SQLite reads the WebAssembly database %s: %s: %r, native %r"
                      % (os.path.basename(wasmdb), name, got[:3], want[name][:3]))
        return 1 if fails else 0
    if len(argv) != 4:
        sys.exit(__doc__)
    ext, outjson, outdb = argv[1:]
    con = connect(ext)
    cases = json.load(open(os.path.join(HERE, "cases.json")))
    sql_cases = []
    for c in cases:
        try:
            got = {"rows": rows(con, c["sql"])}
        except sqlite3.Error as e:
            got = {"error": str(e)}
        sql_cases.append(dict(c, **got))
    its = items()
    prs = probes(its)
    if os.path.exists(outdb):
        os.remove(outdb)
    dbcon = connect(ext, outdb)
    dbcon.executescript(VTAB_SCRIPT)
    vrows = {name: rows(dbcon, sql) for name, sql in QUERIES}
    dbcon.close()
    out = {
        "sqlite_version": sqlite3.sqlite_version,
        "cuckoo_version": con.execute("SELECT cuckoo_version()").fetchone()[0],
        "sql": sql_cases,
        "items": [tag(v) for v in its],
        "probes": [tag(v) for v in prs],
        "filters": filter_cases(con, its, prs),
        "aggs": agg_cases(con, its, prs),
        "malformed": malformed(con),
        "vtab": {"script": VTAB_SCRIPT, "queries": QUERIES, "rows": vrows,
                 "db": base64.b64encode(open(outdb, "rb").read()).decode()},
    }
    with open(outjson, "w") as fh:
        json.dump(out, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
