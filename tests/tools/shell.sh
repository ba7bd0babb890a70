#!/bin/sh
# shell.sh: build a sqlite3 shell that can run .recover, into
# build/tools-shell/sqlite3 (kept: a second run does nothing).
#
#   sh tests/tools/shell.sh
#
# Debian's sqlite3 shell is built without SQLITE_ENABLE_DBPAGE_VTAB, and
# its .recover fails on every database ("SQL logic error").  This one is
# SQLite 3.44.2's shell.c and sqlite3.c (the autoconf tarball inside the
# npm package sqlite3@5.1.7, fetched with `npm pack` and checked against
# its SHA-256), built with sqlite_dbpage, dbstat and extension loading.
set -e
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/tools-shell
pkg=sqlite3-5.1.7.tgz
sum=44cc9bdee02705a7b636f76968d745e21c1d0b2f1c62810c678bc3b0ececab1b
[ -x "$out/sqlite3" ] && exit 0
mkdir -p "$out"
if [ ! -f "$out/$pkg" ]; then
  command -v npm >/dev/null || sh "$top/tests/deps.sh" npm
  (cd "$out" && npm pack --silent sqlite3@5.1.7 >/dev/null)
fi
got=$(sha256sum "$out/$pkg" | cut -d' ' -f1)
if [ "$got" != "$sum" ]; then
  echo "shell.sh: $pkg has SHA-256 $got, expected $sum" >&2
  rm -f "$out/$pkg"
  exit 1
fi
rm -rf "$out/src" && mkdir -p "$out/src"
tar xzf "$out/$pkg" -O package/deps/sqlite-autoconf-3440200.tar.gz |
  tar xz -C "$out/src" --strip-components=1
echo "shell.sh: building SQLite 3.44.2's shell with sqlite_dbpage"
${CC:-gcc} -O1 -w -DSQLITE_ENABLE_DBPAGE_VTAB -DSQLITE_ENABLE_DBSTAT_VTAB \
  -DSQLITE_THREADSAFE=0 -o "$out/sqlite3.tmp" "$out/src/shell.c" \
  "$out/src/sqlite3.c" -ldl -lm
mv "$out/sqlite3.tmp" "$out/sqlite3"
rm -rf "$out/src"
