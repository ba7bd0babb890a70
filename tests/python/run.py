#!/usr/bin/env python3
"""run.py: make test-python, the Python package (bindings/python) tested
with real clients and every Python snippet of the documentation.

    /usr/bin/python3 tests/python/run.py      # from the repository root,
                                              # after `make` (./cuckoo.so)

1. The venv, build/pyvenv/venv, is made by running the install block of
   docs/clients.md's Python section (python3 -m venv ... ; pip install
   --no-build-isolation ./bindings/python) in build/pyvenv, where
   ./bindings is a link to the repository's, with Debian's python3 first
   on PATH; then an sdist is built (it must carry cuckoo.c) and installed
   into a second venv, build/pyvenv/venv-sdist, with no repository around.
   Both are kept while a hash of the package's sources, ext/, the
   amalgamation script and the install block is unchanged
   (build/pyvenv/stamp); otherwise they are made again.
2. tests/python/clients_test.py in the venv: sqlite3, apsw and
   sqlite-utils' Database (see there).
3. The sqlite-utils command line with --load-extension: a database file
   written and read, the table's transactions, an error's message, the
   path without its suffix, BLOBs identical to the other clients'.
4. Every ```python block of README.md, docs/clients.md and
   bindings/python/README.md, and every ```sh block of docs/clients.md's
   Python section, run (python blocks from the repository root in the
   venv, sh blocks in build/pyvenv); the output must be the ```text
   block that follows (only blank lines between; for sh blocks, the last
   lines of the output), or else the `# value` comments of the print()
   lines, one line each. A block flagged `python no-loading` runs in a
   Python whose sqlite3 module cannot load extensions.
5. That case for real: each python3 found (PATH, ~/.pyenv/versions) whose
   sqlite3 module has no enable_load_extension imports the installed
   package and gets ExtensionLoadingUnavailable naming the cause; the
   no-loading blocks also run in the venv with a stand-in connection
   (so the case is never skipped).

Ends with "N passed, N failed".
"""
import ast
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

ROOT = os.getcwd()
sys.path.insert(0, os.path.join(ROOT, "tests"))
import snippets  # noqa: E402

BASE = os.path.join(ROOT, "build", "pyvenv")
VENV_PY = os.path.join(BASE, "venv", "bin", "python")
SDIST_PY = os.path.join(BASE, "venv-sdist", "bin", "python")
WORK = os.path.join(ROOT, "build", "pytest-work")
DEBIAN_PY = os.environ.get("PYTHON", "/usr/bin/python3")
CLIENTS = os.path.join(ROOT, "docs", "clients.md")
from tally import add, bad, check, closing_counts, finish, ok  # noqa: E402


def run(cmd, **kw):
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.run(cmd, text=True, **kw)


def header_version():
    with open(os.path.join(ROOT, "ext", "cuckoo.h"), encoding="utf-8") as fh:
        return re.search(r'^#define CUCKOO_VERSION "(.*)"$', fh.read(),
                         re.M).group(1)


VERSION = header_version()


# -- the documentation's blocks ------------------------------------------

def doc_blocks(path, lang):
    """snippets.py's blocks, each with "section" (its "## " heading) and
    "expect" (the code of a ```text block right after it, or None)."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    texts = {t["line"]: t["code"] for t in snippets.blocks(path, "text")}
    out = []
    for b in snippets.blocks(path, lang):
        section = ""
        for line in lines[:b["line"] - 1]:
            if line.startswith("## "):
                section = line[3:].strip()
        n = b["line"] + b["code"].count("\n") + 1  # its closing fence, 1-based
        while n < len(lines) and not lines[n].strip():
            n += 1
        b["section"] = section
        b["expect"] = texts.get(n + 1)
        out.append(b)
    return out


def comment_values(code):
    """The `# value` comments closing the block's print() calls (on the
    line where each call ends)."""
    lines = code.split("\n")
    ends = sorted(n.end_lineno for n in ast.walk(ast.parse(code))
                  if isinstance(n, ast.Call)
                  and isinstance(n.func, ast.Name) and n.func.id == "print")
    out = []
    for end in ends:
        m = re.search(r"\)\s+# (.*)$", lines[end - 1])
        if m:
            out.append(m.group(1))
    return out


def python_expect(block):
    if block["expect"] is not None:
        return block["expect"]
    values = comment_values(block["code"])
    return "".join(v + "\n" for v in values)


def install_block():
    for b in doc_blocks(CLIENTS, "sh"):
        if b["section"] == "Python" and "pip install" in b["code"]:
            return b
    return None


def doc_env():
    """The environment of the docs' sh blocks: Debian's python3 first."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(DEBIAN_PY) + os.pathsep + env["PATH"]
    return env


def run_sh_block(label, block):
    p = run(["sh", "-e", "-c", block["code"]], cwd=BASE, env=doc_env())
    if p.returncode != 0:
        bad("%s: exit status %d\n%s%s" % (label, p.returncode, p.stdout,
                                          p.stderr))
        return False
    want = block["expect"] or ""
    n = want.count("\n")
    got = "".join(p.stdout.splitlines(True)[-n:]) if n else ""
    check(label + ": output", got, want)
    return got == want


# -- 1. the venvs --------------------------------------------------------

def sources_digest(block):
    h = hashlib.sha256()
    files = []
    for d, dirs, names in os.walk(os.path.join(ROOT, "bindings", "python")):
        dirs[:] = sorted(x for x in dirs if x not in ("build", "__pycache__")
                         and not x.endswith(".egg-info"))
        files += [os.path.join(d, n) for n in sorted(names)]
    files += sorted(glob.glob(os.path.join(ROOT, "ext", "*.[ch]")))
    files.append(os.path.join(ROOT, "dist", "amalgamate.sh"))
    for f in files:
        h.update(os.path.relpath(f, ROOT).encode() + b"\0")
        with open(f, "rb") as fh:
            h.update(fh.read() + b"\0")
    h.update(block["code"].encode())
    h.update(DEBIAN_PY.encode())
    return h.hexdigest()


def make_venvs(block):
    shutil.rmtree(BASE, ignore_errors=True)
    os.makedirs(BASE)
    os.symlink(os.path.join(ROOT, "bindings"), os.path.join(BASE, "bindings"))
    label = "docs/clients.md:%d (install block)" % block["line"]
    if not run_sh_block(label, block):
        return False
    if not os.path.exists(VENV_PY):
        bad("the install block made no %s" % VENV_PY)
        return False
    # an sdist, then installed where no repository is in sight
    sd = os.path.join(BASE, "sdist")
    p = run([VENV_PY, "setup.py", "-q", "sdist", "-d", sd],
            cwd=os.path.join(ROOT, "bindings", "python"))
    tars = glob.glob(os.path.join(sd, "*.tar.gz"))
    if p.returncode != 0 or len(tars) != 1:
        bad("setup.py sdist: %s%s" % (p.stdout, p.stderr))
        return False
    name = "sqlite-cuckoo-%s" % VERSION
    check("sdist file name", os.path.basename(tars[0]), name + ".tar.gz")
    with tarfile.open(tars[0]) as t:
        members = sorted(m.name[len(name) + 1:] for m in t.getmembers()
                         if m.isfile())
    for want in ("LICENSE", "README.md", "cuckoo.c", "pyproject.toml",
                 "setup.py", "sqlite_cuckoo/__init__.py"):
        check("sdist holds %s" % want, want in members, True)
    check("sdist holds no compiled file",
          [m for m in members if m.endswith((".so", ".o", ".pyc"))], [])
    p = run([DEBIAN_PY, "-m", "venv", "--system-site-packages",
             os.path.join(BASE, "venv-sdist")])
    if p.returncode != 0:
        bad("venv-sdist: " + p.stderr)
        return False
    p = run([SDIST_PY, "-m", "pip", "install", "-q", "--no-build-isolation",
             tars[0]], cwd="/")
    check("pip install of the sdist (exit status)%s" % (
        "" if p.returncode == 0 else ": " + p.stdout + p.stderr),
        p.returncode, 0)
    return p.returncode == 0


block = install_block()
if block is None:
    bad("docs/clients.md: no install block (sh, with pip install) in Python")
    finish("run.py")
check("%s has extension loading" % DEBIAN_PY,
      run([DEBIAN_PY, "-c", "import sqlite3; "
           "print(hasattr(sqlite3.Connection, 'enable_load_extension'))"]
          ).stdout, "True\n")
digest = sources_digest(block)
stamp = os.path.join(BASE, "stamp")
cached = (os.path.exists(VENV_PY) and os.path.exists(SDIST_PY)
          and os.path.exists(stamp) and open(stamp).read() == digest)
if cached:
    print("cached: build/pyvenv (package sources and install block unchanged"
          "; remove build/pyvenv to run the install block and sdist again)")
elif make_venvs(block):
    with open(stamp, "w") as fh:
        fh.write(digest)
os.makedirs(WORK, exist_ok=True)
if os.path.exists(os.path.join(WORK, "blobs.json")):
    os.remove(os.path.join(WORK, "blobs.json"))  # clients_test.py writes it

# the sdist's package: built from its own cuckoo.c
p = run([SDIST_PY, "-c", "import sqlite3, sqlite_cuckoo as s\n"
         "c = sqlite3.connect(':memory:'); s.load(c)\n"
         "print(s.__version__, c.execute('SELECT cuckoo_version()')"
         ".fetchone()[0], s.loadable_path())"], cwd="/")
check("the sdist's package loads", p.stdout,
      "%s %s %s\n" % (VERSION, VERSION, os.path.join(
          BASE, "venv-sdist", "lib", "python%d.%d" % sys.version_info[:2],
          "site-packages", "sqlite_cuckoo", "cuckoo.so")))

# the package's cuckoo.so (the amalgamation, compiled by setup.py)
# exports what make's does, and makes the same bytes (after 2, below)
def exports(so):
    p = run(["nm", "-D", "--defined-only", so])
    return sorted(line.split()[-1] for line in p.stdout.splitlines()
                  if line.split()[1:2] == ["T"])


pkg_so = run([VENV_PY, "-c", "import sqlite_cuckoo; "
              "print(sqlite_cuckoo.loadable_path())"]).stdout.strip()
check("the package's cuckoo.so exports sqlite3_cuckoo_init only",
      exports(pkg_so), ["sqlite3_cuckoo_init"])

# -- 2. the clients in the venv ------------------------------------------
p = subprocess.run([VENV_PY, os.path.join(ROOT, "tests", "python",
                                          "clients_test.py"), ROOT, WORK],
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
sys.stdout.write(p.stdout)
counts = closing_counts(p.stdout)
if counts:
    add(*counts)
if not counts or (p.returncode != 0 and not counts[1]):
    bad("clients_test.py exited with status %d" % p.returncode)

p = run([VENV_PY, "-c", "import json, sqlite3\n"
         "c = sqlite3.connect(':memory:'); c.enable_load_extension(True)\n"
         "c.load_extension('./cuckoo')\n"
         "c.execute(\"CREATE TABLE s(email)\")\n"
         "c.executemany('INSERT INTO s VALUES (?)', [(e,) for e in "
         "('ann@x.org', 'cy@x.org', 'eve@x.org')])\n"
         "print(json.dumps({'signups': c.execute('SELECT cuckoo_agg(email) "
         "FROM s').fetchone()[0].hex(), 'vip': c.execute(\"SELECT cuckoo_add("
         "cuckoo_new(1000), 'bob@x.org', 'dee@x.org')\").fetchone()[0]"
         ".hex()}))"], cwd=ROOT)
try:
    with open(os.path.join(WORK, "blobs.json")) as fh:
        pkg_blobs = json.load(fh)
except OSError:
    pkg_blobs = None
check("./cuckoo.so (make) gives the package's filter bytes",
      json.loads(p.stdout or "null"), pkg_blobs)

# -- 3. the sqlite-utils command line ------------------------------------
ext = run([VENV_PY, "-c", "import sqlite_cuckoo; "
           "print(sqlite_cuckoo.loadable_path())"]).stdout.strip()
cli_db = os.path.join(WORK, "cli.db")
if os.path.exists(cli_db):
    os.remove(cli_db)


def cli(*args, path=ext):
    p = run(["sqlite-utils"] + list(args) + ["--load-extension", path],
            cwd=WORK)
    return p.returncode, p.stdout, p.stderr


with open(os.path.join(WORK, "signups.json"), "w") as fh:
    json.dump([{"email": e} for e in ("ann@x.org", "cy@x.org", "eve@x.org")],
              fh)
users = [{"email": "ann@x.org", "name": "Ann"},
         {"email": "bob@x.org", "name": "Bob"},
         {"email": "cy@x.org", "name": "Cy"},
         {"email": "dee@x.org", "name": "Dee"}]
with open(os.path.join(WORK, "users.json"), "w") as fh:
    json.dump(users, fh)
check("cli: insert users", run(["sqlite-utils", "insert", "cli.db", "users",
                                "users.json"], cwd=WORK).returncode, 0)
check("cli: insert signups", run(["sqlite-utils", "insert", "cli.db",
                                  "signups", "signups.json"],
                                 cwd=WORK).returncode, 0)
check("cli: cuckoo_version()",
      cli("query", "cli.db", "SELECT cuckoo_version() AS v"),
      (0, '[{"v": "%s"}]\n' % VERSION, ""))
check("cli: the path without its suffix",
      cli("query", "cli.db", "SELECT cuckoo_version() AS v",
          path=ext[:-len(".so")]),
      (0, '[{"v": "%s"}]\n' % VERSION, ""))
check("cli: filters made by cuckoo_agg and cuckoo_add",
      cli("query", "cli.db",
          "CREATE TABLE filters AS SELECT 'signups' AS name, "
          "cuckoo_agg(email) AS f FROM signups UNION ALL SELECT 'vip', "
          "cuckoo_add(cuckoo_new(1000), 'bob@x.org', 'dee@x.org')")[0], 0)
check("cli: probe in a join",
      cli("query", "cli.db",
          "SELECT u.name FROM users u JOIN filters f ON f.name = 'signups' "
          "AND cuckoo_contains(f.f, u.email) ORDER BY u.name"),
      (0, '[{"name": "Ann"},\n {"name": "Cy"}]\n', ""))
got = cli("query", "cli.db", "SELECT name, lower(hex(f)) AS f FROM filters "
          "ORDER BY name")
check("cli: the filters' bytes are those of sqlite3, apsw and sqlite-utils",
      {r["name"]: r["f"] for r in json.loads(got[1] or "[]")}, pkg_blobs)
check("cli: a cuckoo table filled in one statement",
      cli("query", "cli.db",
          "CREATE VIRTUAL TABLE seen USING cuckoo(capacity=1000)")[0] +
      cli("query", "cli.db", "INSERT INTO seen(item) SELECT email "
          "FROM signups")[0], 0)
check("cli: a statement failing on its second row: the error",
      cli("query", "cli.db", "INSERT INTO seen(item) VALUES ('bob@x.org'), "
          "(cuckoo_new(0))"),
      (1, "", "Error: cuckoo_new: capacity must be a positive integer "
       "(got 0)\n"))
check("cli: ... and it was rolled back",
      cli("query", "cli.db", "SELECT count(*) AS n FROM seen "
          "WHERE item = 'bob@x.org'"), (0, '[{"n": 0}]\n', ""))
check("cli: a committed INSERT",
      cli("query", "cli.db", "INSERT INTO seen(item) VALUES ('bob@x.org')"),
      (0, '[{"rows_affected": 1}]\n', ""))
check("cli: join on the table",
      cli("query", "cli.db", "SELECT u.name FROM users u JOIN seen s "
          "ON s.item = u.email ORDER BY u.name", "--csv"),
      (0, "name\nAnn\nBob\nCy\n", ""))
check("cli: the table's count",
      cli("query", "cli.db", "SELECT json_extract(cuckoo_table_info('seen'),"
          " '$.count') AS n"), (0, '[{"n": 4}]\n', ""))
check("cli: a bad filter's error",
      cli("query", "cli.db", "SELECT cuckoo_contains(x'00', 1)"),
      (1, "", "Error: cuckoo_contains: argument 1 is not a valid cuckoo "
       "filter: too short to be a cuckoo filter (needs a 40-byte header)\n"))
check("cli: the file is read by the sqlite3 module too",
      run([VENV_PY, "-c", "import sqlite3, sqlite_cuckoo\n"
           "c = sqlite3.connect(%r); sqlite_cuckoo.load(c)\n"
           "print(c.execute(\"SELECT count(*) FROM seen WHERE item "
           "IN ('ann@x.org', 'bob@x.org', 'zed@x.org')\").fetchone()[0])"
           % cli_db]).stdout, "2\n")

# -- 5. interpreters without extension loading ---------------------------
# (before 4, whose no-loading blocks run in them)
site = os.path.dirname(os.path.dirname(ext))
STANDIN = '''\
import sqlite3
class Connection:  # stand-in: the connection of a sqlite3 module built
    pass           # without extension loading has no enable_load_extension
Connection.__module__ = "sqlite3"
sqlite3.connect = lambda *args, **kwargs: Connection()
'''
no_loading = []
candidates = [shutil.which("python3") or ""] + sorted(
    glob.glob(os.path.expanduser("~/.pyenv/versions/3.*/bin/python3")))
probe = ("import sys, sqlite3; print(sys.version_info >= (3, 8) and not "
         "hasattr(sqlite3.Connection, 'enable_load_extension'), "
         "sys.executable)")
for exe in candidates:
    if not exe or not os.access(exe, os.X_OK):
        continue
    p = run([exe, "-c", probe])
    if p.returncode == 0 and p.stdout.startswith("True "):
        real = p.stdout.split(" ", 1)[1].strip()
        if real not in [r for _, r in no_loading]:
            no_loading.append((exe, real))
if not no_loading:
    print("note: no python3 without extension loading on this machine: the "
          "case is tested with stand-ins only")
msg = ("sqlite_cuckoo.load: this sqlite3.Connection cannot load extensions: "
       "the sqlite3 module of this Python (%s) was built without extension "
       "loading")
for exe, real in no_loading:
    p = run([exe, "-c", "import sqlite3, sqlite_cuckoo\n"
             "try:\n    sqlite_cuckoo.load(sqlite3.connect(':memory:'))\n"
             "except sqlite_cuckoo.ExtensionLoadingUnavailable as e:\n"
             "    print(str(e).split(' (no enable_load_extension')[0])\n"],
            env=dict(os.environ, PYTHONPATH=site), cwd="/")
    check("%s (%s): load() names the cause" % (exe, real), p.stdout,
          (msg % real) + "\n")

# -- 4. the documentation's blocks ---------------------------------------


def run_python_block(label, b):
    want = python_expect(b)
    runs = [(VENV_PY, "")]
    if "no-loading" in b["flags"]:
        runs = [(VENV_PY, STANDIN)] + [(exe, "") for exe, _ in no_loading]
    for exe, prelude in runs:
        p = run([exe, "-"], input=prelude + b["code"], cwd=ROOT,
                env=dict(os.environ, PYTHONPATH=site))
        got = p.stdout
        m = re.search(r"this Python \((.*?)\)", want)
        if "no-loading" in b["flags"] and m:  # the interpreter's own path
            real = run([exe, "-c", "import sys; print(sys.executable)"]
                       ).stdout.strip()
            got = got.replace("(%s)" % real, "(%s)" % m.group(1))
        how = "" if exe == VENV_PY and not prelude else \
            " [%s]" % ("stand-in" if prelude else exe)
        if p.returncode != 0:
            bad("%s%s: exit status %d\n%s" % (label, how, p.returncode,
                                                p.stderr))
        else:
            check(label + how, got, want)


for md in ("README.md", "docs/clients.md", "bindings/python/README.md"):
    blocks = doc_blocks(os.path.join(ROOT, md), "python")
    if md != "bindings/python/README.md":
        check("%s has python blocks" % md, len(blocks) > 0, True)
    for b in blocks:
        run_python_block("%s:%d python" % (md, b["line"]), b)
for b in doc_blocks(CLIENTS, "sh"):
    if b["section"] == "Python" and b is not None and \
            b["line"] != block["line"]:
        run_sh_block("docs/clients.md:%d sh" % b["line"], b)
if cached:
    print("cached: docs/clients.md:%d (install block) ran when build/pyvenv "
          "was made" % block["line"])

finish("run.py")
