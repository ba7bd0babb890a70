#!/bin/sh
# build.sh: build one SQLite version of the compatibility matrix under
# build/compat/<version>/ (kept there: a second run does nothing).
#
#   sh tests/compat/build.sh 3.31.1
#   sh tests/compat/build.sh --src 3.54.1 DIR
#
# With --src nothing is built: DIR receives the version's sqlite3.c,
# sqlite3.h, sqlite3ext.h and shell.c (the version's own, or its first
# companion's; see below) and a SOURCES file, for builds of other kinds
# (WebAssembly, Windows) that compile SQLite themselves.
#
# Result, all from the same version's sqlite3.c:
#   lib/libsqlite3.so.0   the library, with Debian's compile options
#   include/sqlite3*.h    its headers (the C tests are built against them)
#   bin/sqlite3           the shell
#   tcl/libtclsqlite3.so  the Tcl interface (tests/tester.tcl loads it when
#                         CUCKOO_TCLSQLITE names it)
#   SOURCES               where each piece came from
# Packages come from npm (`npm pack`) into build/compat/npm and must match
# tests/compat/sha256sums.  A version whose package has no shell.c or
# tclsqlite3.c (better-sqlite3 ships the amalgamation only) gets those two
# files from the nearest release tests/compat/versions names that builds
# cleanly against this version's sqlite3.h and library; SOURCES says so.
set -e
srconly=""
if [ "$1" = --src ]; then
  srconly=$3
  [ -n "$srconly" ] || { echo "usage: build.sh --src VERSION DIR" >&2; exit 1; }
  shift
fi
ver=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/compat
out=$top/build/compat/$ver
npmdir=$top/build/compat/npm
# Built already by this same build.sh: nothing to do.
if [ -z "$srconly" ] && grep -qs "^build.sh $(sha256sum "$0" | cut -d' ' -f1)$" "$out/SOURCES"; then
  exit 0
fi

line=$(awk -v v="$ver" '$1 == v' "$here/versions")
[ -n "$line" ] || { echo "build.sh: $ver is not in tests/compat/versions" >&2; exit 1; }
set -- $line
pkg=$2 where=$3 companion=$4

# npm pack NAME@VER into build/compat/npm (once), checked against sha256sums;
# prints the path of the .tgz.  The package is packed into a directory of
# this process's own and renamed into place, so that builds running at
# the same time (tests/compat/run.sh) never read a half-written file.
fetch() {
  name=${1%@*} v=${1##*@}
  tgz=$npmdir/$name-$v.tgz
  mkdir -p "$npmdir"
  if [ ! -f "$tgz" ]; then
    packdir=$(mktemp -d "$npmdir/pack.XXXXXX") &&
      (cd "$packdir" && npm pack --silent "$1" >/dev/null 2>&1) &&
      mv "$packdir/$name-$v.tgz" "$tgz" || {
        rm -rf "$packdir"; echo "build.sh: npm pack $1 failed" >&2; exit 1; }
    rm -rf "$packdir"
  fi
  want=$(awk -v f="$name-$v.tgz" '$2 == f {print $1}' "$here/sha256sums")
  got=$(sha256sum "$tgz" | cut -d' ' -f1)
  if [ -z "$want" ] || [ "$want" != "$got" ]; then
    echo "build.sh: $tgz: SHA-256 $got does not match tests/compat/sha256sums" >&2
    rm -f "$tgz"
    exit 1
  fi
  echo "$tgz"
}

# Unpack package $1's sources ($2: autoconf tarball or deps/sqlite3) into
# directory $3: sqlite3.c, sqlite3.h, sqlite3ext.h and, from an autoconf
# tarball, shell.c and tclsqlite3.c.
unpack() {
  tgz=$(fetch "$1")
  rm -rf "$3" && mkdir -p "$3"
  case $2 in
  *.tar.gz)
    tar xzf "$tgz" -O "package/$2" | tar xz -C "$3" --strip-components=1
    cp "$3/tea/generic/tclsqlite3.c" "$3/tclsqlite3.c"
    ;;
  *)
    tar xzf "$tgz" -C "$3" --strip-components=3 "package/$2/sqlite3.c" \
      "package/$2/sqlite3.h" "package/$2/sqlite3ext.h"
    ;;
  esac
}

src=$out.src
unpack "$pkg" "$where" "$src"
got=$(sed -n 's/^#define SQLITE_VERSION *"\(.*\)"/\1/p' "$src/sqlite3.h")
[ "$got" = "$ver" ] || { echo "build.sh: $pkg holds SQLite $got, not $ver" >&2; exit 1; }

# --src: the sources only, shell.c from the version itself or from its
# first companion (the one `make compat` checks builds against it).
if [ -n "$srconly" ]; then
  mkdir -p "$srconly"
  cp "$src/sqlite3.c" "$src/sqlite3.h" "$src/sqlite3ext.h" "$srconly/"
  from="$pkg ($where)"
  if [ "$companion" != - ]; then
    c=${companion%%,*}
    cwhere=$(tar tzf "$(fetch "$c")" |
      sed -n 's|^package/\(deps/sqlite-autoconf-[0-9]*\.tar\.gz\)$|\1|p')
    unpack "$c" "$cwhere" "$out.companion"
    src=$out.companion
    from="$c ($cwhere)"
  fi
  cp "$src/shell.c" "$srconly/"
  printf 'SQLite %s\nsqlite3.c, sqlite3.h, sqlite3ext.h: %s (%s)\nshell.c: %s\n' \
    "$ver" "$pkg" "$where" "$from" >"$srconly/SOURCES"
  rm -rf "$out.src" "$out.companion"
  exit 0
fi

# Debian's compile options (PRAGMA compile_options of Debian 12's build);
# JSON1 is built in from 3.38 and an option before; DESERIALIZE is on by
# default from 3.36 (Python's sqlite3 module needs it).
OPTS="-DSQLITE_SECURE_DELETE -DSQLITE_ENABLE_COLUMN_METADATA
 -DSQLITE_ENABLE_FTS3 -DSQLITE_ENABLE_FTS3_PARENTHESIS
 -DSQLITE_ENABLE_FTS3_TOKENIZER -DSQLITE_ENABLE_FTS4 -DSQLITE_ENABLE_FTS5
 -DSQLITE_ENABLE_JSON1 -DSQLITE_ENABLE_RTREE -DSQLITE_ENABLE_MATH_FUNCTIONS
 -DSQLITE_ENABLE_DBSTAT_VTAB -DSQLITE_ENABLE_STMTVTAB
 -DSQLITE_ENABLE_UNLOCK_NOTIFY -DSQLITE_ENABLE_PREUPDATE_HOOK
 -DSQLITE_ENABLE_SESSION -DSQLITE_ENABLE_LOAD_EXTENSION
 -DSQLITE_ENABLE_DESERIALIZE
 -DSQLITE_LIKE_DOESNT_MATCH_BLOBS -DSQLITE_THREADSAFE=1 -DSQLITE_USE_URI=1
 -DSQLITE_SOUNDEX -DSQLITE_OMIT_LOOKASIDE -DSQLITE_DEFAULT_RECURSIVE_TRIGGERS
 -DSQLITE_MAX_SCHEMA_RETRY=25 -DSQLITE_MAX_VARIABLE_NUMBER=250000
 -DSQLITE_DEFAULT_FILE_FORMAT=4 -DHAVE_USLEEP -DHAVE_FDATASYNC -DHAVE_ISNAN"
CC=${CC:-gcc}
tmp=$out.tmp
rm -rf "$tmp" && mkdir -p "$tmp/lib" "$tmp/include" "$tmp/bin" "$tmp/tcl"
cp "$src/sqlite3.h" "$src/sqlite3ext.h" "$tmp/include/"
echo "SQLite $ver: building libsqlite3.so.0"
# shellcheck disable=SC2086
$CC -O2 -w -fPIC -shared $OPTS -I"$src" -Wl,-soname,libsqlite3.so.0 \
  -o "$tmp/lib/libsqlite3.so.0" "$src/sqlite3.c" -lpthread -ldl -lm
ln -s libsqlite3.so.0 "$tmp/lib/libsqlite3.so"

# The shell and the Tcl interface link the library (not a copy of their
# own).  A companion's files must use only what this version has: they
# are compiled with -Werror=implicit-function-declaration and linked with
# --no-undefined; the first companion (in the order listed) that builds
# cleanly is used.
CHECK="-Werror=implicit-function-declaration -Werror=int-conversion"
build_tools() { # $1: directory with shell.c and tclsqlite3.c
  # compiled from a directory of their own: #include "sqlite3.h" must find
  # this version's header, not the one next to them in their tarball
  rm -rf "$tmp/tools" && mkdir -p "$tmp/tools" &&
  cp "$1/shell.c" "$1/tclsqlite3.c" "$tmp/tools/" &&
  # shellcheck disable=SC2086
  $CC -O2 $OPTS $CHECK -I"$tmp/include" -o "$tmp/bin/sqlite3" "$tmp/tools/shell.c" \
    -L"$tmp/lib" -Wl,-rpath,"$out/lib" -lsqlite3 -lpthread -ldl -lm &&
  # shellcheck disable=SC2086
  $CC -O2 -fPIC -shared $OPTS $CHECK -DUSE_SYSTEM_SQLITE=1 -DUSE_TCL_STUBS \
    -DPACKAGE_VERSION="\"$ver\"" -I"$tmp/include" -I/usr/include/tcl8.6 \
    -o "$tmp/tcl/libtclsqlite3.so" "$tmp/tools/tclsqlite3.c" \
    -L"$tmp/lib" -Wl,-rpath,"$out/lib" -Wl,--no-undefined -lsqlite3 \
    -ltclstub8.6
}
if [ "$companion" = - ]; then
  from="$pkg ($where)"
  echo "SQLite $ver: building the shell and Tcl interface from $from"
  build_tools "$src"
else
  from=""
  for c in $(echo "$companion" | tr , ' '); do
    extra=$out.companion
    cwhere=$(tar tzf "$(fetch "$c")" |
      sed -n 's|^package/\(deps/sqlite-autoconf-[0-9]*\.tar\.gz\)$|\1|p')
    unpack "$c" "$cwhere" "$extra"
    cver=$(sed -n 's/^#define SQLITE_VERSION *"\(.*\)"/\1/p' "$extra/sqlite3.h")
    echo "SQLite $ver: building the shell and Tcl interface from SQLite $cver ($c)"
    if build_tools "$extra" 2>"$out.companion.log"; then
      from="$c ($cwhere, SQLite $cver: this version's package has none)"
      break
    fi
    echo "SQLite $ver: SQLite $cver's shell.c or tclsqlite3.c does not build against $ver:"
    grep -m3 -E 'error|undefined' "$out.companion.log" | sed 's/^/  /'
  done
  [ -n "$from" ] || { echo "build.sh: no companion builds for $ver" >&2; exit 1; }
fi
cat > "$tmp/SOURCES" <<EOT
SQLite $ver
build.sh $(sha256sum "$0" | cut -d' ' -f1)
library and headers: $pkg ($where)
shell.c and tclsqlite3.c: $from
EOT
rm -rf "$out" "$tmp/tools"
mv "$tmp" "$out"
rm -rf "$out.src" "$out.companion" "$out.companion.log"
echo "SQLite $ver: built in build/compat/$ver"
