"""clients_test.py: the sqlite_cuckoo package with real Python clients.

Run by the venv's python (tests/python/run.py starts it):

    build/pyvenv/venv/bin/python tests/python/clients_test.py ROOT WORKDIR

With each client -- the standard sqlite3 module, apsw, sqlite-utils'
Database -- on a database file of its own: filters made with cuckoo_new /
cuckoo_add (items as parameters) and cuckoo_agg, probed in a join and
with a BLOB passed back as a parameter; a `cuckoo` virtual table written
in a transaction that is rolled back (gone) and in one that commits (a
second connection sees it), a statement failing half-way changing
nothing; the functions' errors carrying their messages word for word
(docs/reference.md). The filters' bytes are the same in every client.
Then the package itself: the version (= CUCKOO_VERSION of ext/cuckoo.h),
loadable_path() with and without its suffix, extension loading disabled
again after load() (also when loading fails), and the error for a
connection that cannot load extensions (stand-in objects, so it is
always tested; run.py adds a real interpreter without extension loading).
Ends with "N passed, N failed".
"""
import importlib.metadata
import json
import os
import re
import sqlite3
import sys

import apsw
import sqlite_utils

import sqlite_cuckoo

ROOT, WORK = sys.argv[1], sys.argv[2]
from tally import bad, check, finish, ok  # noqa: E402


def header_version():
    with open(os.path.join(ROOT, "ext", "cuckoo.h"), encoding="utf-8") as fh:
        return re.search(r'^#define CUCKOO_VERSION "(.*)"$', fh.read(),
                         re.M).group(1)


VERSION = header_version()
USERS = [("ann@x.org", "Ann"), ("bob@x.org", "Bob"), ("cy@x.org", "Cy"),
         ("dee@x.org", "Dee")]
SIGNUPS = ["ann@x.org", "cy@x.org", "eve@x.org"]
E_CAPACITY = "cuckoo_new: capacity must be a positive integer (got 0)"
E_SHORT = ("cuckoo_contains: argument 1 is not a valid cuckoo filter: too "
           "short to be a cuckoo filter (needs a 40-byte header)")


class Sqlite3Client:
    name = "sqlite3"
    error = sqlite3.OperationalError

    def connect(self, path):
        con = sqlite3.connect(path, isolation_level=None)  # BEGIN is ours
        sqlite_cuckoo.load(con)
        return con

    def q(self, con, sql, params=()):
        return con.execute(sql, params).fetchall()

    def message(self, e):
        return str(e)

    def commit(self, con):  # autocommit: nothing to do
        pass

    def rollback(self, con):
        pass

    def setup(self, con):
        self.q(con, "CREATE TABLE users(email TEXT, name TEXT)")
        con.executemany("INSERT INTO users VALUES (?, ?)", USERS)
        self.q(con, "CREATE TABLE signups(email TEXT)")
        con.executemany("INSERT INTO signups VALUES (?)",
                        [(e,) for e in SIGNUPS])

    def txn(self, con, sql, params, commit):
        self.q(con, "BEGIN")
        self.q(con, sql, params)
        inside = self.q(con, "SELECT count(*) FROM seen WHERE item = ?",
                        params)
        self.q(con, "COMMIT" if commit else "ROLLBACK")
        return inside


class ApswClient(Sqlite3Client):
    name = "apsw"
    error = apsw.SQLError

    def connect(self, path):
        con = apsw.Connection(path)
        sqlite_cuckoo.load(con)
        return con

    def q(self, con, sql, params=()):
        return [tuple(r) for r in con.cursor().execute(sql, params)]

    def message(self, e):
        # apsw before 3.42 puts the class name in front of SQLite's message
        m = str(e)
        return m[len("SQLError: "):] if m.startswith("SQLError: ") else m

    def setup(self, con):
        self.q(con, "CREATE TABLE users(email TEXT, name TEXT)")
        con.cursor().executemany("INSERT INTO users VALUES (?, ?)", USERS)
        self.q(con, "CREATE TABLE signups(email TEXT)")
        con.cursor().executemany("INSERT INTO signups VALUES (?)",
                                 [(e,) for e in SIGNUPS])


class SqliteUtilsClient(Sqlite3Client):
    """sqlite_utils.Database: its own API for the plain tables, db.conn
    (a sqlite3 connection in its default, implicit-transaction mode) with
    `with db.conn:` for the transactions."""
    name = "sqlite-utils"

    def connect(self, path):
        db = sqlite_utils.Database(path)
        sqlite_cuckoo.load(db.conn)
        return db

    def q(self, db, sql, params=()):
        return db.execute(sql, params).fetchall()

    def commit(self, db):
        db.conn.commit()

    def rollback(self, db):
        db.conn.rollback()

    def setup(self, db):
        db["users"].insert_all([{"email": e, "name": n} for e, n in USERS])
        db["signups"].insert_all([{"email": e} for e in SIGNUPS])

    def txn(self, db, sql, params, commit):
        class Undo(Exception):
            pass
        inside = None
        try:
            with db.conn:  # commits at the end, rolls back on an exception
                self.q(db, sql, params)
                inside = self.q(db, "SELECT count(*) FROM seen WHERE item = ?",
                                params)
                if not commit:
                    raise Undo()
        except Undo:
            pass
        return inside


def scenario(client):
    """Everything one client does; returns the filter BLOBs it made."""
    n = client.name
    path = os.path.join(WORK, "%s.db" % n)
    for suffix in ("", "-journal", "-wal"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    con = client.connect(path)
    q = lambda sql, params=(): client.q(con, sql, params)
    check(n + ": cuckoo_version()", q("SELECT cuckoo_version()"),
          [(VERSION,)])
    client.setup(con)

    # filters: cuckoo_agg over a table, cuckoo_new/cuckoo_add with items
    # passed as parameters
    q("CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB)")
    q("INSERT INTO filters SELECT 'signups', cuckoo_agg(email) FROM signups")
    q("INSERT INTO filters VALUES ('vip', cuckoo_add(cuckoo_new(1000), ?, ?))",
      ("bob@x.org", "dee@x.org"))
    client.commit(con)
    check(n + ": cuckoo_count of the filters",
          q("SELECT name, cuckoo_count(f) FROM filters ORDER BY name"),
          [("signups", 3), ("vip", 2)])
    check(n + ": probe in a join (cuckoo_agg filter)",
          q("SELECT u.name FROM users u JOIN filters f ON f.name = 'signups'"
            " AND cuckoo_contains(f.f, u.email) ORDER BY u.name"),
          [("Ann",), ("Cy",)])
    check(n + ": probe in a join (cuckoo_add filter)",
          q("SELECT u.name FROM users u JOIN filters f ON f.name = 'vip'"
            " AND cuckoo_contains(f.f, u.email) ORDER BY u.name"),
          [("Bob",), ("Dee",)])
    blobs = dict(q("SELECT name, f FROM filters ORDER BY name"))
    check(n + ": a filter comes back as bytes",
          [type(b).__name__ for b in blobs.values()], ["bytes", "bytes"])
    check(n + ": a filter passed back as a parameter",
          q("SELECT cuckoo_contains(?1, 'eve@x.org'), "
            "cuckoo_contains(?1, 'bob@x.org'), cuckoo_count(?1)",
            (blobs["signups"],)), [(1, 0, 3)])

    # the virtual table
    q("CREATE VIRTUAL TABLE seen USING cuckoo(capacity=1000)")
    client.commit(con)
    q("INSERT INTO seen(item) SELECT email FROM signups")
    client.commit(con)
    info = "SELECT json_extract(cuckoo_table_info('seen'), '$.count')"
    join = ("SELECT u.name FROM users u JOIN seen s ON s.item = u.email"
            " ORDER BY u.name")
    check(n + ": table count after INSERT ... SELECT", q(info), [(3,)])
    check(n + ": join on the table", q(join), [("Ann",), ("Cy",)])
    inside = client.txn(con, "INSERT INTO seen(item) VALUES (?)",
                        ("bob@x.org",), commit=False)
    check(n + ": row seen inside the transaction", inside, [(1,)])
    check(n + ": rolled back: the item is gone",
          q("SELECT count(*) FROM seen WHERE item = 'bob@x.org'"), [(0,)])
    check(n + ": rolled back: count", q(info), [(3,)])
    inside = client.txn(con, "INSERT INTO seen(item) VALUES (?)",
                        ("bob@x.org",), commit=True)
    check(n + ": row seen inside the committed transaction", inside, [(1,)])
    other = client.connect(path)
    check(n + ": committed: another connection joins on it",
          client.q(other, join), [("Ann",), ("Bob",), ("Cy",)])
    check(n + ": committed: count in another connection",
          client.q(other, info), [(4,)])

    # errors carry the function's message; a failing statement changes
    # nothing (statement rollback in the table)
    for label, sql, params, want in (
            ("cuckoo_new(0)", "SELECT cuckoo_new(0)", (), E_CAPACITY),
            ("a 1-byte BLOB", "SELECT cuckoo_contains(?, 1)", (b"\x00",),
             E_SHORT),
            ("an INSERT failing on its second row",
             "INSERT INTO seen(item) VALUES ('zed@x.org'), (cuckoo_new(0))",
             (), E_CAPACITY)):
        try:
            q(sql, params)
            bad("%s: %s: no error" % (n, label))
        except client.error as e:
            check("%s: error of %s (%s)" % (n, label, type(e).__name__),
                  client.message(e), want)
    client.rollback(con)
    check(n + ": the failed INSERT added nothing",
          q("SELECT count(*) FROM seen WHERE item = 'zed@x.org'") + q(info),
          [(0,), (4,)])
    check(n + ": and the other connection agrees",
          client.q(other, "SELECT count(*) FROM seen WHERE item = 'zed@x.org'"),
          [(0,)])
    for c in (con, other):
        (c.conn if hasattr(c, "conn") else c).close()
    return blobs


blobs = {}
for client in (Sqlite3Client(), ApswClient(), SqliteUtilsClient()):
    try:
        blobs[client.name] = scenario(client)
    except Exception as e:  # a crash of one client is one failure
        bad("%s: %s: %s" % (client.name, type(e).__name__, e))
if len(blobs) == 3:
    first = blobs["sqlite3"]
    check("the same filter bytes in sqlite3, apsw and sqlite-utils",
          [b == first for b in blobs.values()], [True, True, True])
    with open(os.path.join(WORK, "blobs.json"), "w") as fh:
        json.dump({k: v.hex() for k, v in first.items()}, fh)

# The package itself
check("__version__ is CUCKOO_VERSION", sqlite_cuckoo.__version__, VERSION)
check("installed distribution's version",
      importlib.metadata.version("sqlite-cuckoo"), VERSION)
dist = importlib.metadata.distribution("sqlite-cuckoo")
wheel = dist.read_text("WHEEL") or ""
check("a platform wheel, for any Python 3",
      (re.findall(r"^Root-Is-Purelib: (.*)$", wheel, re.M),
       [t.split("-")[:2] for t in re.findall(r"^Tag: (.*)$", wheel, re.M)]),
      (["false"], [["py3", "none"]]))
check("the installed files (so pip uninstall removes them all)",
      sorted(str(f) for f in dist.files if str(f).startswith("sqlite_cuckoo/")
             and not str(f).endswith(".pyc")),
      ["sqlite_cuckoo/__init__.py", "sqlite_cuckoo/_version.py",
       "sqlite_cuckoo/cuckoo.so"])
path = sqlite_cuckoo.loadable_path()
pkgdir = os.path.dirname(os.path.abspath(sqlite_cuckoo.__file__))
check("loadable_path() is cuckoo.so in the installed package",
      (os.path.dirname(path), os.path.basename(path), os.path.isfile(path)),
      (pkgdir, "cuckoo.so", True))
check("the installed package is not the source tree",
      pkgdir.startswith(os.path.join(ROOT, "bindings")), False)
for label, p in (("with", path), ("without", path[:-len(".so")])):
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(p)
    check("sqlite3 loads the path %s its suffix" % label,
          con.execute("SELECT cuckoo_version()").fetchall(), [(VERSION,)])
    a = apsw.Connection(":memory:")
    (getattr(a, "enable_load_extension", None) or a.enableloadextension)(True)
    (getattr(a, "load_extension", None) or a.loadextension)(p)
    check("apsw loads the path %s its suffix" % label,
          [tuple(r) for r in a.cursor().execute("SELECT cuckoo_version()")],
          [(VERSION,)])

# load() leaves extension loading disabled, also when loading fails
def loading_disabled(name, load_ext, error, message):
    """load_ext(path) must fail with SQLite's "not authorized"."""
    try:
        load_ext(path)
        bad(name + ": loading still enabled")
    except error as e:
        check(name + ": loading disabled again", message(e), "not authorized")


con = sqlite3.connect(":memory:")
sqlite_cuckoo.load(con)
loading_disabled("sqlite3, after load()", con.load_extension,
                 sqlite3.OperationalError, str)
a = apsw.Connection(":memory:")
sqlite_cuckoo.load(a)
loading_disabled(
    "apsw, after load()",
    getattr(a, "load_extension", None) or a.loadextension, apsw.Error,
    lambda e: ApswClient().message(e).replace("ExtensionLoadingError: ", ""))
db = sqlite_utils.Database(memory=True)
sqlite_cuckoo.load(db)
check("load() takes a sqlite_utils.Database too",
      db.execute("SELECT cuckoo_version()").fetchall(), [(VERSION,)])

real_path = sqlite_cuckoo.loadable_path
sqlite_cuckoo.loadable_path = lambda: os.path.join(WORK, "no-such-file.so")
con = sqlite3.connect(":memory:")
try:
    sqlite_cuckoo.load(con)
    bad("load() of a missing file: no error")
except sqlite3.OperationalError as e:
    check("load() of a missing file: SQLite's error",
          "no-such-file.so" in str(e), True)
loading_disabled("sqlite3, after a failed load()", con.load_extension,
                 sqlite3.OperationalError, str)
sqlite_cuckoo.loadable_path = real_path


# A connection that cannot load extensions: stand-ins with no
# enable_load_extension, one posing as the sqlite3 module's Connection of
# a Python built without extension loading (pyenv's default).
class Connection:
    def execute(self, sql):
        raise AssertionError("not reached")


Connection.__module__ = "sqlite3"
want = ("sqlite_cuckoo.load: this sqlite3.Connection cannot load extensions: "
        "the sqlite3 module of this Python (%s) was built without extension "
        "loading (no enable_load_extension; CPython is built that way unless "
        "configured with --enable-loadable-sqlite-extensions, as pyenv does "
        "by default). Use a Python built with it (e.g. Debian's or Ubuntu's "
        "/usr/bin/python3, or pyenv with PYTHON_CONFIGURE_OPTS="
        "\"--enable-loadable-sqlite-extensions\"), or the apsw module"
        % sys.executable)
for label, conn, message in (
        ("a sqlite3.Connection without extension loading", Connection(),
         want),
        ("an object without the methods", object(),
         "sqlite_cuckoo.load: builtins.object has no method to load an "
         "extension (enable_load_extension and load_extension): pass a "
         "sqlite3.Connection of a Python built with extension loading, or "
         "an apsw.Connection")):
    try:
        sqlite_cuckoo.load(conn)
        bad("load(%s): no error" % label)
    except sqlite_cuckoo.ExtensionLoadingUnavailable as e:
        check("load(%s): the error names the cause" % label, str(e), message)
        check("load(%s): a RuntimeError" % label,
              isinstance(e, RuntimeError), True)

finish("clients_test")
