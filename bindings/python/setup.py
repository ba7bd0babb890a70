# setup.py: build of the sqlite-cuckoo package (MIT License, see LICENSE).
#
# The extension is a plain shared library, not a CPython module: the
# build writes the one-file amalgamation cuckoo.c (dist/amalgamate.sh of
# the repository, or the copy an sdist carries), compiles it with the C
# compiler ($CC, default cc; $CFLAGS, default -O2) into
# sqlite_cuckoo/cuckoo.so, and ships that file as package data.  The
# version is CUCKOO_VERSION of ext/cuckoo.h (or of the bundled cuckoo.c).
#
# Needs sqlite3ext.h and xxhash.h (Debian: libsqlite3-dev, libxxhash-dev).
import os
import re
import shutil
import subprocess
import sys
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
AMALGAMATE = os.path.join(REPO, "dist", "amalgamate.sh")
HEADER = os.path.join(REPO, "ext", "cuckoo.h")
BUNDLED = os.path.join(HERE, "cuckoo.c")  # present in an sdist only
SUFFIX = ".dylib" if sys.platform == "darwin" else ".so"


def in_repository():
    return os.path.exists(AMALGAMATE) and os.path.exists(HEADER)


def version():
    path = HEADER if in_repository() else BUNDLED
    if not os.path.exists(path):
        sys.exit("sqlite-cuckoo: neither the repository's ext/cuckoo.h nor "
                 "a bundled cuckoo.c found next to %s" % HERE)
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            m = re.match(r'#define CUCKOO_VERSION "(.*)"$', line.rstrip("\n"))
            if m:
                return m.group(1)
    sys.exit("sqlite-cuckoo: no CUCKOO_VERSION in %s" % path)


def write_amalgamation(dest):
    """Write the one-file source of the extension to dest."""
    if in_repository():
        with open(dest, "wb") as out:
            subprocess.check_call(["sh", AMALGAMATE], stdout=out)
    else:
        shutil.copyfile(BUNDLED, dest)


def missing_headers(cc):
    """The Debian packages of the headers the compiler cannot find."""
    missing = []
    for header, pkg in (("sqlite3ext.h", "libsqlite3-dev"),
                        ("xxhash.h", "libxxhash-dev")):
        p = subprocess.run(cc + ["-E", "-x", "c", "-"],
                           input=("#include <%s>\n" % header).encode(),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if p.returncode != 0:
            missing.append((header, pkg))
    return missing


def compile_extension(out):
    cc = os.environ.get("CC", "cc").split()
    cflags = os.environ.get("CFLAGS", "-O2").split()
    ldflags = os.environ.get("LDFLAGS", "").split()
    missing = missing_headers(cc)
    if missing:
        sys.exit("sqlite-cuckoo: cannot build the extension: %s; on Debian or "
                 "Ubuntu: apt-get install %s" % (
                     ", ".join("%s not found (it comes with %s)" % m
                               for m in missing),
                     " ".join(m[1] for m in missing)))
    tmp = tempfile.mkdtemp(prefix="sqlite-cuckoo-")
    try:
        src = os.path.join(tmp, "cuckoo.c")
        write_amalgamation(src)
        cmd = cc + cflags + ["-fPIC", "-shared", "-fvisibility=hidden", src,
                             "-o", out] + ldflags + ["-lm"]
        print(" ".join(cmd))
        subprocess.check_call(cmd)
    finally:
        shutil.rmtree(tmp)


class BuildPy(build_py):
    """The Python files, then the compiled extension and _version.py."""

    def run(self):
        super().run()
        pkg = os.path.join(self.build_lib, "sqlite_cuckoo")
        os.makedirs(pkg, exist_ok=True)
        compile_extension(os.path.join(pkg, "cuckoo" + SUFFIX))
        with open(os.path.join(pkg, "_version.py"), "w") as fh:
            fh.write("# written by setup.py from CUCKOO_VERSION\n"
                     "__version__ = %r\n" % version())

    def get_outputs(self, include_bytecode=1):
        pkg = os.path.join(self.build_lib, "sqlite_cuckoo")
        return super().get_outputs(include_bytecode) + [
            os.path.join(pkg, "cuckoo" + SUFFIX),
            os.path.join(pkg, "_version.py")]


class Sdist(sdist):
    """An sdist builds without the repository: it carries cuckoo.c."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        write_amalgamation(os.path.join(base_dir, "cuckoo.c"))
        if os.path.exists(os.path.join(REPO, "LICENSE")):
            shutil.copyfile(os.path.join(REPO, "LICENSE"),
                            os.path.join(base_dir, "LICENSE"))


cmdclass = {"build_py": BuildPy, "sdist": Sdist}

try:  # the wheel holds a native library: tag it for the platform
    from wheel.bdist_wheel import bdist_wheel

    class BdistWheel(bdist_wheel):
        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            return ("py3", "none", super().get_tag()[2])

    cmdclass["bdist_wheel"] = BdistWheel
except ImportError:
    pass

setup(version=version(), cmdclass=cmdclass)
