#!/bin/sh
# run.sh: make test-windows.  The Windows builds of mk/windows.mk (in
# build/windows: cuckoo.dll, sqlite3.exe of SQLite VERSION, blob_tool.exe,
# core_test.exe) run under wine64, and what they do is compared with the
# Linux build, ./cuckoo.so:
#   - the DLL exports only sqlite3_cuckoo_init and needs only Windows' own
#     DLLs;
#   - the demo (sql/demo.sql) prints what SQLite VERSION's Linux shell
#     prints (tests/compat/build.sh builds that shell);
#   - tests/blobs.sql: the BLOB of every function that writes one, the
#     same digests as with Debian's sqlite3 on Linux;
#   - database files: tests/windows/write.sql (filters from the scalar,
#     aggregate and window functions, a cuckoo table that grows to several
#     levels) run on each system, each file read back by read.sql on both
#     (the same output four times over: Windows reopening its own file,
#     Linux reading it, and the reverse), the two files' dumps identical
#     (every BLOB of every table, the shadow tables' included); then each
#     system changes the file the other wrote (update.sql: the table grows
#     again) and the same checks follow;
#   - tests/windows/malformed.sql: malformed BLOBs, bad options and a
#     damaged cuckoo table rejected with the same errors, word for word,
#     as on Linux, and nothing stored changed;
#   - the release tarball (make dist): the Windows snippets of
#     docs/install.md run, the MinGW command on its cuckoo.c (that DLL gives
#     Linux's BLOBs too) and the shell command, in wine's cmd.exe, on the
#     tarball's own cuckoo.dll;
#   - tests/cross/blob_tool.c: the filters each system writes read and
#     rewritten on the other, the files byte-identical;
#   - core_test.exe, its loops divided by CUCKOO_TEST_SCALE (its golden
#     hashes pin the BLOB bytes);
#   - tests/windows/msvc.sh: the cl /LD command of docs/install.md with
#     clang-cl for cl, the MSVC branches compiled, no GCC extension left,
#     the DLL's BLOBs and demo compared with Linux's.
# Ends with "N passed, N failed".
#
#   sh tests/windows/run.sh VERSION cuckoo-VERSION.tar.gz
set -u
ver=$1
tarball=$2
root=$(pwd)
W=build/windows
d=$W/test
. tests/tally.sh
WINE=${WINE:-/usr/lib/wine/wine64}
WINESERVER=${WINESERVER:-/usr/lib/wine/wineserver}
# The prefix is created on the first run and kept (build/windows/wine).
WINEPREFIX=$root/$W/wine
WINEDEBUG=-all
# No Mono or Gecko installer dialogs when the prefix is created.
WINEDLLOVERRIDES="mscoree,mshtml="
export WINEPREFIX WINEDEBUG WINEDLLOVERRIDES
linux_new=$root/build/compat/$ver/bin/sqlite3
scale=${CUCKOO_TEST_SCALE:-40}

rm -rf $d && mkdir -p $d/win $d/linux
cp $W/cuckoo.dll $d/win/
cp cuckoo.so $d/linux/

# The wine server and its services are started with nothing attached (a
# service started from a test would hold the test's pipes open), and kept
# for the run: stopped at the end, or 30 s after the last program.
$WINESERVER -p30 </dev/null >/dev/null 2>&1
$WINE "$root/$W/sqlite3.exe" :memory: "SELECT 1" </dev/null >/dev/null 2>&1
trap '$WINESERVER -k >/dev/null 2>&1' EXIT

# win NAME [ARGS]: sqlite3.exe in $d/win, stdin from $d/in, output to
# $d/NAME.out and $d/NAME.err with Windows' CRLF line ends made LF.
win() {
  name=$1
  shift
  (cd $d/win && $WINE "$root/$W/sqlite3.exe" "$@") <$d/in >$d/$name.crlf 2>$d/$name.errcrlf
  tr -d '\r' <$d/$name.crlf >$d/$name.out
  tr -d '\r' <$d/$name.errcrlf >$d/$name.err
}
# lin NAME SHELL [ARGS]: the same on Linux in $d/linux.
lin() {
  name=$1
  sh=$2
  shift 2
  (cd $d/linux && "$sh" "$@") <$d/in >$d/$name.out 2>$d/$name.err
}
same() { cmp -s "$d/$1" "$d/$2" || { diff "$d/$1" "$d/$2" | head -10; false; }; }
empty() { [ ! -s "$d/$1" ] || { head -5 "$d/$1"; false; }; }

# The builds.
echo "SELECT sqlite_version();" >$d/in
win version
check "sqlite3.exe runs under wine: SQLite $(cat $d/version.out)" \
  [ "$(cat $d/version.out)" = "$ver" ]
exports=$(x86_64-w64-mingw32-objdump -p $W/cuckoo.dll |
  sed -n '/Ordinal\/Name Pointer/,/^$/s/^[[:space:]]*\[ *[0-9]*\] //p' | tr '\n' ' ')
check "cuckoo.dll exports [$exports]" [ "$exports" = "sqlite3_cuckoo_init " ]
imports=$(x86_64-w64-mingw32-objdump -p $W/cuckoo.dll |
  sed -n 's/^.*DLL Name: //p' | sort | tr '\n' ' ')
check "cuckoo.dll imports [$imports]" [ "$imports" = "KERNEL32.dll msvcrt.dll " ]

# The demo: the same output as SQLite $ver's shell on Linux.
cp sql/demo.sql $d/in
win demo
lin demo-linux "$linux_new"
check "demo runs ($(wc -l <$d/demo.out) lines), no error" \
  sh -c "[ -s $d/demo.out ] && [ ! -s $d/demo.err ]"
check "demo output identical to Linux's" same demo.out demo-linux.out

# Every way of writing a filter BLOB: the digests of Debian's sqlite3 and
# cuckoo.so.
cp tests/blobs.sql $d/in
win blobs
lin blobs-linux sqlite3
check "blobs.sql gives 11 digests" \
  [ "$(grep -c '^[a-z0-9-]*|[0-9A-F]\{64\}' $d/blobs.out)" = 11 ]
check "blobs.sql reports no error" empty blobs.err
check "BLOBs byte-identical to Linux's (blobs.sql)" same blobs.out blobs-linux.out

# Database files written on each system, read on both.  $1: the stage.
readback() {
  cp tests/windows/read.sql $d/in
  win "read-win-$1" win.db
  win "read-linux-$1" linux.db
  lin "lread-win-$1" sqlite3 win.db
  lin "lread-linux-$1" sqlite3 linux.db
  for r in read-win read-linux lread-win lread-linux; do
    check "$1: read.sql on $r: no error" empty "$r-$1.err"
  done
  check "$1: Windows reopens its file: cuckoo_check ok" \
    grep -qx 'check|ok' $d/read-win-$1.out
  check "$1: Windows reopens its file: no false negative" \
    sh -c "grep -qx 'missing|0' $d/read-win-$1.out &&
           grep -qx 'missing-u|0' $d/read-win-$1.out &&
           grep -qx 'agg-missing|0' $d/read-win-$1.out"
  levels=$(sed -n 's/^table|\([0-9]*\)|.*/\1/p' $d/read-win-$1.out)
  check "$1: the table grew to $levels levels" [ "${levels:-0}" -ge "$2" ]
  check "$1: Linux reads Windows' file as Windows does" same read-win-$1.out lread-win-$1.out
  check "$1: Windows reads Linux's file as Linux does" same read-linux-$1.out lread-linux-$1.out
  check "$1: both files read the same" same read-win-$1.out read-linux-$1.out
  (cd $d/linux && sqlite3 ../win/win.db .dump) >$d/dump-win-$1.sql
  (cd $d/linux && sqlite3 linux.db .dump) >$d/dump-linux-$1.sql
  check "$1: the files' dumps identical ($(wc -c <$d/dump-win-$1.sql) bytes)" \
    same dump-win-$1.sql dump-linux-$1.sql
}
# exchange SQL WINDB LINDB STAGE LEVELS: SQL (tests/windows/SQL.sql) run
# by Windows on WINDB and by Linux on LINDB, each file then copied to the
# other system, and readback STAGE LEVELS.
exchange() {
  cp tests/windows/$1.sql $d/in
  win $1-${2%.db} $2
  lin $1-${3%.db} sqlite3 $3
  check "$1.sql on Windows ($2): no error" empty $1-${2%.db}.err
  check "$1.sql on Linux ($3): no error" empty $1-${3%.db}.err
  cp $d/win/$2 $d/linux/$2
  cp $d/linux/$3 $d/win/$3
  readback $4 $5
}
exchange write win.db linux.db written 4
# Each system changes the other's file.
exchange update linux.db win.db updated 5

# Malformed input: the same errors as on Linux, nothing changed.
cp tests/windows/malformed.sql $d/in
win malformed
lin malformed-linux "$linux_new"
n=$(grep -c '^Error' $d/malformed.err)
check "malformed.sql: 18 statements fail ($n)" [ "$n" = 18 ]
check "malformed.sql: messages identical to Linux's" same malformed.err malformed-linux.err
check "malformed.sql: output identical to Linux's" same malformed.out malformed-linux.out
before=$(sed -n 's/^before|//p' $d/malformed.out)
check "malformed.sql: the stored filter unchanged" \
  sh -c "[ -n '$before' ] && grep -qx 'after|$before' $d/malformed.out"
check "malformed.sql: the damaged table unchanged" grep -qx 'count|2000' $d/malformed.out
check "malformed.sql: a too-short BLOB" grep -q 'cuckoo_add: argument 1 is not a valid cuckoo filter: too short to be a cuckoo filter (needs a 40-byte header)$' $d/malformed.err
check "malformed.sql: a damaged block" grep -q 'cuckoo table t is corrupt: block 0.3 (id 3 of t_blocks) has 10 bytes, expected 112; run cuckoo_check() on it$' $d/malformed.err

# The release tarball and the Windows snippets of docs/install.md (the
# blocks `sh windows` and `cmd windows`; a ```text block right after one is
# its output).  The MinGW command builds a DLL from the tarball's cuckoo.c
# next to the headers it names; that DLL gives the BLOBs of cuckoo.so too.
doc() { # doc LANG: the blocks of LANG marked windows, one JSON list
  python3 tests/snippets.py docs/install.md "$1" | python3 -c '
import json, sys
print(json.dumps([b for b in json.load(sys.stdin) if "windows" in b["flags"]]))'
}
block() { # block LANG N [text]: block N's code, or the text block after it
  doc "$1" | python3 -c '
import json, sys
sys.path.insert(0, "tests")
import snippets
b = json.load(sys.stdin)[int(sys.argv[1])]
if len(sys.argv) < 3:
    sys.stdout.write(b["code"])
    sys.exit(0)
lines = open("docs/install.md", encoding="utf-8").read().split("\n")
end = b["line"] + b["code"].count("\n") + 1
for t in snippets.blocks("docs/install.md", "text"):
    if t["line"] > end and all(not x.strip() for x in lines[end:t["line"] - 1]):
        sys.stdout.write(t["code"])
        break' "$2" ${3:-}
}
nsh=$(doc sh | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
ncmd=$(doc cmd | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
check "docs/install.md: 2 sh and 1 cmd Windows blocks ($nsh, $ncmd)" \
  [ "$nsh/$ncmd" = 2/1 ]
check "docs (sh windows 0): $(block sh 0)" sh -c "$(block sh 0) >$d/doc-make.log 2>&1"
t=$d/tarball
mkdir -p $t
tar -C $t -xzf "$tarball" --strip-components=1
cp /usr/include/xxhash.h /usr/include/sqlite3.h /usr/include/sqlite3ext.h $t/
check "docs (sh windows 1): $(block sh 1)" sh -c "cd $t && $(block sh 1)"
mkdir -p $d/mingw
cp $t/cuckoo.dll $d/mingw/
cp tests/blobs.sql $d/in
(cd $d/mingw && $WINE "$root/$W/sqlite3.exe" :memory:) <$d/in 2>&1 |
  tr -d '\r' >$d/blobs-mingw.out
check "the DLL of the MinGW command gives Linux's BLOBs" same blobs-mingw.out blobs-linux.out
# The tarball's own DLL, with the cmd block, in wine's cmd.exe.
mkdir -p $d/cmd
cp $W/sqlite3.exe $d/cmd/
tar -xzf "$tarball" --wildcards '*/cuckoo.dll' -O >$d/cmd/cuckoo.dll
{ echo '@echo off'; block cmd 0; } >$d/cmd/doc.bat
want=$(block cmd 0 text)
got=$(cd $d/cmd && $WINE cmd /c doc.bat </dev/null 2>&1 | tr -d '\r')
check "docs (cmd windows 0), the tarball's DLL: [$got], the page says [$want]" \
  [ -n "$want" -a "$got" = "$want" ]

# The core's filters, written on each system and checked on the other.
# tool KEY LABEL CMD...: one check, passed when CMD exits 0 with a closing
# line "N passed, 0 failed" (read by tests/counts.awk, the one parser).
tool() {
  key=$1
  label=$2
  shift 2
  "$@" >$d/$key.log 2>&1
  rc=$?
  p=0
  f=1
  if counts=$(tr -d '\r' <$d/$key.log | awk -f tests/counts.awk); then
    set -- $counts
    p=$1
    f=$2
  fi
  check "$label: $p passed, $f failed, exit $rc" [ $rc = 0 -a "$f" = 0 ]
}
mkdir -p $d/blobs-win $d/blobs-linux
tool win-write "blob_tool.exe write" $WINE "$root/$W/blob_tool.exe" write $d/blobs-win
tool linux-write "blob_tool write" build/cross/blob_tool write $d/blobs-linux
tool linux-check "Linux reads Windows' BLOBs" build/cross/blob_tool check $d/blobs-win
tool win-check "Windows reads Linux's BLOBs" $WINE "$root/$W/blob_tool.exe" check $d/blobs-linux
nb=0
nsame=0
for f in $d/blobs-linux/*.blob; do
  nb=$((nb + 1))
  cmp -s "$f" "$d/blobs-win/${f##*/}" && nsame=$((nsame + 1))
done
check "blob_tool files byte-identical ($nsame of $nb)" \
  sh -c "[ $nb -gt 0 ] && [ $nsame = $nb ]"
tool core "core_test.exe (loops / $scale)" \
  env CUCKOO_TEST_SCALE="$scale" $WINE "$root/$W/core_test.exe"

# Microsoft's compiler's mode: the cl /LD command on the tarball's cuckoo.c.
. tests/windows/msvc.sh

finish
