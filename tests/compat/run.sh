#!/bin/sh
# run.sh: the compatibility matrix.  For each SQLite version named (all of
# tests/compat/versions when none is), build it (tests/compat/build.sh),
# then run against it, with its library in front of Debian's
# (LD_LIBRARY_PATH, and its shell first in PATH):
#   - the whole Tcl suite (tests/run.tcl) through its own Tcl interface,
#     loading the one ./cuckoo.so built against Debian's sqlite3.h;
#   - the C tests that link SQLite (built against the version's sqlite3.h
#     and library) and the load-refusal test;
#   - travel: every version writes a database (tests/compat/travel.tcl),
#     then every version checks every version's database, and
#     tests/compat/format1.db: the same database written by the last
#     build of shadow-table format 1 (commit 1f6f1a0, SQLite 3.40.1), and
#     tests/compat/format2.db, by the last build of format 2 (commit
#     6485063, SQLite 3.40.1), read and written by this build
#     (docs/format.md#versioning).
# Prints one table, version x (passed, failed, skipped), the travel
# matrix, and a closing "N passed, N failed".
#
#   sh tests/compat/run.sh [--quick] [VERSION...]
#
# --quick (make test-compat) leaves out the two long C tests, model_test
# and crash_test.
#
# Logs: build/compat/log/<version>.build.log (the build) and
# build/compat/log/<version>.log (the run).  COMPAT_JOBS (default 2)
# versions are built, and then run, at a time.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
here=tests/compat
SQLCTESTS="fault_test agg_test model_test crash_test ioerr_test"
if [ "$1" = --quick ]; then
  # make test-compat: the long model and crash runs are left to make compat
  SQLCTESTS="fault_test agg_test ioerr_test"
  shift
fi
versions=$*
[ -n "$versions" ] || versions=$(awk '!/^#/ && NF {print $1}' $here/versions)
CC=${CC:-gcc}
CFLAGS=${CFLAGS:--O2 -g}
WARN="-Wall -Wextra -Werror"
mkdir -p build/compat/log build/compat/travel

env_for() { # the environment that puts version $1 in front
  d=$top/build/compat/$1
  echo "PATH=$d/bin:$PATH LD_LIBRARY_PATH=$d/lib" \
    "CUCKOO_TCLSQLITE=$d/tcl/libtclsqlite3.so CUCKOO_EXT=$top/cuckoo.so"
}

# 1. build every version and its C tests (the extension's sources compiled
# once per version with -DSQLITE_CORE; rebuilt when a source changed),
# COMPAT_JOBS versions at a time, each into build/compat/log/<v>.build.log
# (printed, in the order of the versions, once all are built)
stale() { # stale TARGET SOURCES...: missing or older than a source
  target=$1
  shift
  [ ! -f "$target" ] ||
    [ -n "$(find "$@" -newer "$target" 2>/dev/null | head -1)" ]
}
build_version() {
  v=$1
  sh $here/build.sh "$v" || return 1
  d=build/compat/$v
  mkdir -p "$d/tests/obj"
  if stale "$d/tests/libcuckoo.a" ext "$d/include"; then
    rm -f "$d/tests/obj/"*.o "$d/tests/libcuckoo.a"
    for c in ext/*.c; do
      o=$d/tests/obj/$(basename "$c" .c).o
      $CC $CFLAGS $WARN -DSQLITE_CORE -I"$d/include" -Iext -c -o "$o" "$c" ||
        return 1
    done
    ar rcs "$d/tests/libcuckoo.a" "$d/tests/obj/"*.o || return 1
  fi
  for t in $SQLCTESTS; do
    stale "$d/tests/$t" "tests/$t.c" tests/testlib.h tests/vfsshim.h \
      "$d/tests/libcuckoo.a" || continue
    $CC $CFLAGS $WARN -DSQLITE_CORE -I"$d/include" -Iext -o "$d/tests/$t" \
      tests/$t.c "$d/tests/libcuckoo.a" -L"$d/lib" -Wl,-rpath,"$top/$d/lib" \
      -lsqlite3 -lm || return 1
  done
  stale "$d/tests/loadver_test" tests/loadver_test.c || return 0
  $CC $CFLAGS $WARN -I"$d/include" -o "$d/tests/loadver_test" \
    tests/loadver_test.c -L"$d/lib" -Wl,-rpath,"$top/$d/lib" -lsqlite3 -ldl
}
jobs=${COMPAT_JOBS:-2}
i=0
for v in $versions; do
  rm -f "build/compat/log/$v.build.rc"
  { build_version "$v"; echo $? > "build/compat/log/$v.build.rc"; } \
    > "build/compat/log/$v.build.log" 2>&1 &
  i=$((i + 1))
  [ $((i % jobs)) = 0 ] && wait
done
wait
for v in $versions; do
  cat "build/compat/log/$v.build.log"
  [ "$(cat "build/compat/log/$v.build.rc" 2>/dev/null)" = 0 ] || {
    echo "SQLite $v: the build failed (build/compat/log/$v.build.log)"
    exit 1
  }
done

# 2. every version writes its database
for v in $versions; do
  env $(env_for "$v") tclsh $here/travel.tcl write "build/compat/travel/$v.db" ||
    exit 1
done
dbs=""
for v in $versions; do dbs="$dbs $top/build/compat/travel/$v.db"; done
dbs="$dbs $top/$here/format1.db $top/$here/format2.db"

# 3. each version: the suite, the C tests, every database; COMPAT_JOBS
# versions at a time, each in a directory of its own (the tests keep their
# files under ./build)
run_version() {
  v=$1
  d=build/compat/$v
  log=$top/build/compat/log/$v.log
  ctests=""
  for t in $SQLCTESTS loadver_test; do ctests="$ctests $top/$d/tests/$t"; done
  rm -rf "$d/run" && mkdir -p "$d/run/build"
  (
    cd "$d/run" || exit 1
    # the running library, as the Tcl interface and the shell see it
    got=$(echo 'load $env(CUCKOO_TCLSQLITE) Sqlite3
sqlite3 db :memory:
puts [db one {SELECT sqlite_version()}]' | env $(env_for "$v") tclsh)
    shell=$(env $(env_for "$v") sqlite3 :memory: 'SELECT sqlite_version()' 2>&1)
    echo "running: Tcl interface $got, shell $shell"
    env $(env_for "$v") tclsh "$top/tests/run.tcl" --ext "$top/cuckoo.so" $ctests
    env $(env_for "$v") tclsh "$top/$here/travel.tcl" check $dbs
  ) >"$log" 2>&1
}
i=0
for v in $versions; do
  echo "== SQLite $v: shell and Tcl interface from $(sed -n 's/^shell.c and tclsqlite3.c: //p' build/compat/$v/SOURCES)"
  run_version "$v" &
  i=$((i + 1))
  [ $((i % jobs)) = 0 ] && wait
done
wait

table=""
travel=""
tp=0
tf=0
for v in $versions; do
  log=build/compat/log/$v.log
  echo "== SQLite $v"
  grep -E '^running:|^[a-z0-9_]+(\.test)? +[0-9]+ passed|^failed:|^- |^! |^travel: [^0-9]' "$log"
  # the suite's closing line (bare) and the travel test's, read by
  # tests/counts.awk; none is one failure
  p=0; f=1; trp=0; trf=1
  if c=$(awk -v bare=1 -f tests/counts.awk "$log"); then
    p=${c%% *}; c=${c#* }; f=${c%% *}
  fi
  if c=$(awk -v name=travel -f tests/counts.awk "$log"); then
    trp=${c%% *}; c=${c#* }; trf=${c%% *}
  fi
  s=$(sed -n -E 's/^([0-9]+) skipped .*/\1/p' "$log" | tail -1)
  s=${s:-0}
  # a library other than the one asked for is a failure of the run
  if ! grep -q "^running: Tcl interface $v, shell $v$" "$log"; then
    echo "! SQLite $v: not the library asked for: $(grep '^running:' "$log")"
    f=$((f + 1))
  fi
  tp=$((tp + p + trp))
  tf=$((tf + f + trf))
  table="$table$(printf '| %-7s | %6d | %6d | %7d | %6d | %6d |' \
    "$v" "$p" "$f" "$s" "$trp" "$trf")
"
  row=$(printf '| %-7s |' "$v")
  for w in $versions; do
    if grep -Eq "^travel: written by $w( \(format [0-9]+\))?, read by $v .* ok$" "$log"; then
      row="$row $(printf '%-7s' ok) |"
    else
      row="$row $(printf '%-7s' FAIL) |"
    fi
  done
  travel="$travel$row
"
done

echo
echo "Suite (Tcl tests and SQL C tests) and travel, per SQLite version:"
echo
echo "| SQLite  | passed | failed | skipped | travel | travel |"
echo "|         |        |        |         | passed | failed |"
echo "| ------- | ------ | ------ | ------- | ------ | ------ |"
printf '%s' "$table"
echo
echo "Travel: the database written by (column) read and written by (row):"
echo
hdr="| read by |"
sep="| ------- |"
for w in $versions; do
  hdr="$hdr $(printf '%-7s' "$w") |"
  sep="$sep ------- |"
done
echo "$hdr"
echo "$sep"
printf '%s' "$travel"
echo
echo "$tp passed, $tf failed"
[ "$tf" = 0 ]
