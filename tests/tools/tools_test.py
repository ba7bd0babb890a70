#!/usr/bin/python3
"""tools_test.py: the tools people point at a database, run against one
that holds filter columns and a grown cuckoo table.

  /usr/bin/python3 tests/tools/tools_test.py --ext ./cuckoo.so [--dir DIR]
                  [--recover-shell build/tools-shell/sqlite3]

Runs sqlite-utils (tables --counts, rows, query, dump), the sqlite3 shell
(.dump piped into a new database, .recover of a database with a damaged
page; Debian's shell lacks sqlite_dbpage, so tests/tools/shell.sh builds
one that has it, and Debian's shell applies its output), VACUUM INTO, Python's Connection.backup, and dbstat size queries.
Every copy must pass cuckoo_check and find every item (no false
negative).  Ends with "N passed, N failed".

It runs on Debian's /usr/bin/python3, whose sqlite3 module can load
extensions (sqlite-utils runs on it too).
"""
import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

N_USERS = 3000
ap = argparse.ArgumentParser()
ap.add_argument("--ext", default="./cuckoo.so")
ap.add_argument("--dir", default="build/tools")
ap.add_argument("--recover-shell", default="build/tools-shell/sqlite3")
args = ap.parse_args()
EXT = os.path.abspath(args.ext)
RECOVER = os.path.abspath(args.recover_shell)
DIR = os.path.abspath(args.dir)
DOC = "tools.md"  # the page that gives the dbstat figures
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

passed = failed = 0


def check(name, got, want):
    global passed, failed
    if got == want:
        passed += 1
    else:
        failed += 1
        print(f"! {name} failed\n!   expected: {want!r}\n!   got:      {got!r}")


def run(cmd, stdin=None):
    """Run a command; its stdout (text).  A failure is reported and ''."""
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if p.returncode != 0:
        print(f"! {' '.join(cmd[:3])}... exited {p.returncode}: {p.stderr[:500]}")
        return None
    return p.stdout


def connect(path):
    db = sqlite3.connect(path)
    db.enable_load_extension(True)
    db.load_extension(EXT)
    db.enable_load_extension(False)
    return db


def build(path):
    db = connect(path)
    db.executescript(f"""
      CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT);
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n
                              WHERE i<{N_USERS})
      INSERT INTO users SELECT i, 'user' || i || '@example.com' FROM n;
      CREATE INDEX users_email ON users(email);
      -- filter columns: one filter of the day's visitors per row
      CREATE TABLE daily(day INTEGER PRIMARY KEY, visitors BLOB);
      INSERT INTO daily SELECT id % 7, cuckoo_agg(email) FROM users
      GROUP BY id % 7;
      -- a cuckoo table grown past its capacity (several levels)
      CREATE VIRTUAL TABLE seen USING cuckoo(capacity=1000, error_rate=0.001);
      INSERT INTO seen SELECT email FROM users;
      INSERT INTO seen SELECT id FROM users;
    """)
    db.commit()
    db.close()


def verify(name, path):
    """A copy: cuckoo_check ok, every item of the table and of the filter
    columns found, and the counts right."""
    db = connect(path)
    q = lambda sql: db.execute(sql).fetchone()[0]
    check(f"{name}.check", q("SELECT cuckoo_check('seen')"), "ok")
    check(f"{name}.integrity", q("PRAGMA integrity_check"), "ok")
    check(f"{name}.count", q("SELECT count(*) FROM seen"), 2 * N_USERS)
    check(f"{name}.levels",
          q("SELECT json_extract(cuckoo_table_info('seen'), '$.levels') > 1"), 1)
    check(f"{name}.items",
          q("""WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n
                                       WHERE i<%d)
               SELECT (SELECT count(*) FROM n JOIN seen ON seen.item = n.i)
                    + (SELECT count(*) FROM n JOIN seen
                       ON seen.item = 'user' || n.i || '@example.com')"""
            % N_USERS), 2 * N_USERS)
    check(f"{name}.columns",
          q("""WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n
                                       WHERE i<%d)
               SELECT count(*) FROM n JOIN daily ON daily.day = n.i %% 7
               WHERE cuckoo_contains(visitors, 'user' || n.i ||
                                     '@example.com')""" % N_USERS), N_USERS)
    db.close()


def main():
    shutil.rmtree(DIR, ignore_errors=True)
    os.makedirs(DIR)
    src = os.path.join(DIR, "src.db")
    build(src)
    verify("source", src)
    le = ["--load-extension", EXT]

    # 1. sqlite-utils
    out = run(["sqlite-utils", "tables", src, "--counts"] + le)
    counts = {r["table"]: r["count"] for r in json.loads(out or "[]")}
    check("sqlite-utils.tables", sorted(counts),
          ["daily", "seen", "seen_blocks", "seen_config", "seen_levels",
           "seen_log", "users"])
    check("sqlite-utils.counts", (counts.get("seen"), counts.get("users"),
                                  counts.get("daily")), (2 * N_USERS, N_USERS, 7))
    out = run(["sqlite-utils", "rows", src, "seen", "--limit", "5"] + le)
    check("sqlite-utils.rows", json.loads(out or "null"), [{"item": None}] * 5)
    out = run(["sqlite-utils", "rows", src, "seen", "-c", "rowid", "-c", "level",
               "-c", "fingerprint", "-c", "copies", "--limit", "3"] + le)
    rows = json.loads(out or "[]")
    check("sqlite-utils.rows-hidden",
          [sorted(r) for r in rows] == [["copies", "fingerprint", "level",
                                         "rowid"]] * 3 and
          all(r["fingerprint"] > 0 and r["copies"] >= 1 for r in rows), True)
    out = run(["sqlite-utils", "query", src,
               "SELECT item, copies FROM seen WHERE item IN "
               "('user7@example.com', 7, 'nobody') ORDER BY item"] + le)
    check("sqlite-utils.query", json.loads(out or "null"),
          [{"item": 7, "copies": 1},
           {"item": "user7@example.com", "copies": 1}])
    out = run(["sqlite-utils", "dump", src] + le)
    # Python's iterdump: the virtual table's CREATE, a row per stored
    # fingerprint (item NULL), then the shadow tables and their rows.
    nblocks = connect(src).execute("SELECT count(*) FROM seen_blocks").fetchone()[0]
    check("sqlite-utils.dump",
          (out is not None and "CREATE VIRTUAL TABLE seen USING cuckoo" in out,
           len(re.findall(r'^INSERT INTO "seen_blocks" VALUES', out or "", re.M)),
           len(re.findall(r'^INSERT INTO "seen" VALUES\(NULL\);', out or "", re.M))),
          (True, nblocks, 2 * N_USERS))

    # 2. the sqlite3 shell: .dump into a new database
    dump = run(["sqlite3", src, ".dump"])
    copy = os.path.join(DIR, "dump.db")
    run(["sqlite3", copy], stdin=dump)
    verify("shell-dump", copy)

    # 3. .recover of a database with a damaged page (a leaf of users): the
    # cuckoo table and the filter column come back whole
    def damage(name, table):
        path = os.path.join(DIR, name)
        shutil.copy(src, path)
        db = sqlite3.connect(path)
        pgsize = db.execute("PRAGMA page_size").fetchone()[0]
        pageno = db.execute("SELECT pageno FROM dbstat WHERE name = ? AND "
                            "pagetype = 'leaf' ORDER BY pageno LIMIT 1 "
                            "OFFSET 1", (table,)).fetchone()[0]
        db.close()
        with open(path, "r+b") as f:
            f.seek((pageno - 1) * pgsize)
            f.write(b"\xa5" * pgsize)
        try:
            bad = sqlite3.connect(path).execute(
                "PRAGMA integrity_check").fetchone()[0]
        except sqlite3.DatabaseError as e:
            bad = str(e)
        check(f"recover.{table}.damaged", bad != "ok", True)
        rec = run([RECOVER, path, ".recover"])
        recovered = os.path.join(DIR, "recovered-" + name)
        run(["sqlite3", recovered], stdin=rec)
        return recovered

    recovered = damage("damaged-users.db", "users")
    verify("recover", recovered)
    left = connect(recovered).execute("SELECT count(*) FROM users").fetchone()[0]
    check("recover.users-lost", 0 < left < N_USERS, True)
    # A damaged block is lost: it reads as an empty block (format 2), so
    # cuckoo_check reports its level's count against the slots in use (or
    # a level's last block as missing), never "ok".
    recovered = damage("damaged-blocks.db", "seen_blocks")
    db = connect(recovered)
    report = db.execute("SELECT cuckoo_check('seen')").fetchone()[0]
    check("recover.blocks-reported", report != "ok" and
          ("slots in use" in report or "missing" in report), True)

    # 4. VACUUM INTO
    vac = os.path.join(DIR, "vacuum.db")
    db = connect(src)
    db.execute("VACUUM INTO ?", (vac,))
    db.close()
    verify("vacuum-into", vac)

    # 5. the online backup API, while another connection has unflushed
    # changes open (they are not in the copy; the committed items are)
    bak = os.path.join(DIR, "backup.db")
    s = connect(src)
    d = sqlite3.connect(bak)
    s.backup(d)
    d.close()
    s.close()
    verify("backup", bak)

    # 6. dbstat: the figures docs/tools.md gives for a table of capacity
    # 1000000 and error_rate 0.001 (page size 4096), as its text blocks
    # print them
    sz = os.path.join(DIR, "size.db")
    db = connect(sz)
    db.execute("CREATE VIRTUAL TABLE m USING cuckoo(capacity=1000000, "
               "error_rate=0.001)")
    db.commit()
    # a new table stores one block: the million items reach them all
    db.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
               "FROM n WHERE i < 1000000) INSERT INTO m SELECT i FROM n")
    db.commit()
    bytes_, nblock = db.execute(
        "SELECT json_extract(cuckoo_table_info('m'), '$.bytes'),"
        " json_extract(cuckoo_table_info('m'), '$.blocks')").fetchone()
    rows = db.execute(
        "SELECT name, count(*), sum(pgsize), sum(payload) FROM dbstat "
        "WHERE name LIKE 'm\\_%' ESCAPE '\\' GROUP BY name ORDER BY name"
    ).fetchall()
    db.close()
    blocks_row = [r for r in rows if r[0] == "m_blocks"][0]
    # each row's payload is its block plus a 4-byte record header
    check("dbstat.payload", blocks_row[3] - bytes_, 4 * nblock)
    doc = open(os.path.join(ROOT, "docs", DOC)).read()
    texts = re.findall(r"^```text\n(.*?)^```", doc, re.M | re.S)
    check("dbstat.docs-bytes", f"{bytes_}|{nblock}\n" in texts, True)
    check("dbstat.docs-pages",
          "".join("|".join(str(x) for x in r) + "\n" for r in rows) in texts,
          True)
    check("dbstat.docs-total",
          f"{sum(r[2] for r in rows):,}" in doc and
          f"{blocks_row[2]:,}" in doc and f"{bytes_:,}" in doc, True)

    print(f"tools_test.py: {passed} passed, {failed} failed")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


sys.exit(main())
