"""sqlite_cuckoo: the cuckoo-filter extension for SQLite (MIT License).

    import sqlite3, sqlite_cuckoo
    con = sqlite3.connect("my.db")
    sqlite_cuckoo.load(con)          # or: apsw.Connection, sqlite_utils' db.conn
    con.execute("SELECT cuckoo_version()")

loadable_path() is the path of the compiled extension inside this package,
for any client that loads an extension by file name (the sqlite3 shell's
.load, sqlite-utils --load-extension, ...).
"""
import os
import sys

try:
    from ._version import __version__
except ImportError:  # run from the source tree, not built
    __version__ = None

__all__ = ["loadable_path", "load", "ExtensionLoadingUnavailable",
           "__version__"]

_SUFFIX = ".dylib" if sys.platform == "darwin" else ".so"


class ExtensionLoadingUnavailable(RuntimeError):
    """The connection cannot load extensions at all (its sqlite3 module was
    built without extension loading)."""


def loadable_path():
    """The full path of the extension's shared library in this package
    (cuckoo.so), to pass to load_extension() or the shell's .load."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "cuckoo" + _SUFFIX)
    if not os.path.exists(path):
        raise FileNotFoundError(
            "sqlite_cuckoo: %s is missing: this copy of the package was not "
            "built; install it with pip (pip install ./bindings/python)" % path)
    return path


def _no_loading_message(conn):
    kind = "%s.%s" % (type(conn).__module__, type(conn).__qualname__)
    if type(conn).__module__ == "sqlite3":
        return (
            "sqlite_cuckoo.load: this %s cannot load extensions: the sqlite3 "
            "module of this Python (%s) was built without extension loading "
            "(no enable_load_extension; CPython is built that way unless "
            "configured with --enable-loadable-sqlite-extensions, as pyenv "
            "does by default). Use a Python built with it (e.g. Debian's or "
            "Ubuntu's /usr/bin/python3, or pyenv with PYTHON_CONFIGURE_OPTS="
            "\"--enable-loadable-sqlite-extensions\"), or the apsw module"
            % (kind, sys.executable))
    return ("sqlite_cuckoo.load: %s has no method to load an extension "
            "(enable_load_extension and load_extension): pass a "
            "sqlite3.Connection of a Python built with extension loading, or "
            "an apsw.Connection" % kind)


def _methods(conn):
    """The connection's (enable, load) methods: sqlite3 and apsw >= 3.42
    name them enable_load_extension and load_extension, older apsw
    enableloadextension and loadextension; None when it has neither."""
    for enable, load in (("enable_load_extension", "load_extension"),
                         ("enableloadextension", "loadextension")):
        if hasattr(conn, enable) and hasattr(conn, load):
            return getattr(conn, enable), getattr(conn, load)
    return None


def load(conn):
    """Load the extension into conn: a sqlite3.Connection, an
    apsw.Connection, or anything with their methods for loading an
    extension (a sqlite_utils.Database: pass db.conn, or db itself).
    Extension loading is enabled for the call only and disabled again.
    Raises ExtensionLoadingUnavailable when the connection cannot load
    extensions at all, naming the cause."""
    if _methods(conn) is None and hasattr(conn, "conn"):
        conn = conn.conn  # sqlite_utils.Database
    methods = _methods(conn)
    if methods is None:
        raise ExtensionLoadingUnavailable(_no_loading_message(conn))
    enable, load_extension = methods
    path = loadable_path()
    enable(True)
    try:
        load_extension(path)
    finally:
        enable(False)
