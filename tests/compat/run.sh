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
#     then every version checks every version's database.
# Prints one table, version x (passed, failed, skipped), the travel
# matrix, and a closing "N passed, N failed".
#
#   sh tests/compat/run.sh [--quick] [VERSION...]
#
# --quick (make test-compat) leaves out the two long C tests, model_test
# and crash_test.
#
# Logs: build/compat/log/<version>.log.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
here=tests/compat
SQLCTESTS="fault_test agg_test model_test crash_test"
if [ "$1" = --quick ]; then
  # make test-compat: the long model and crash runs are left to make compat
  SQLCTESTS="fault_test agg_test"
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
# once per version with -DSQLITE_CORE; rebuilt when a source changed)
stale() { # stale TARGET SOURCES...: missing or older than a source
  t=$1
  shift
  [ ! -f "$t" ] || [ -n "$(find "$@" -newer "$t" 2>/dev/null | head -1)" ]
}
for v in $versions; do
  sh $here/build.sh "$v" || exit 1
  d=build/compat/$v
  mkdir -p "$d/tests/obj"
  if stale "$d/tests/libcuckoo.a" ext "$d/include"; then
    rm -f "$d/tests/obj/"*.o "$d/tests/libcuckoo.a"
    for c in ext/*.c; do
      o=$d/tests/obj/$(basename "$c" .c).o
      $CC $CFLAGS $WARN -DSQLITE_CORE -I"$d/include" -Iext -c -o "$o" "$c" ||
        exit 1
    done
    ar rcs "$d/tests/libcuckoo.a" "$d/tests/obj/"*.o || exit 1
  fi
  for t in $SQLCTESTS; do
    stale "$d/tests/$t" "tests/$t.c" "$d/tests/libcuckoo.a" || continue
    $CC $CFLAGS $WARN -DSQLITE_CORE -I"$d/include" -Iext -o "$d/tests/$t" \
      tests/$t.c "$d/tests/libcuckoo.a" -L"$d/lib" -Wl,-rpath,"$top/$d/lib" \
      -lsqlite3 -lm || exit 1
  done
  stale "$d/tests/loadver_test" tests/loadver_test.c ||
    continue
  $CC $CFLAGS $WARN -I"$d/include" -o "$d/tests/loadver_test" \
    tests/loadver_test.c -L"$d/lib" -Wl,-rpath,"$top/$d/lib" -lsqlite3 -ldl ||
    exit 1
done

# 2. every version writes its database
for v in $versions; do
  env $(env_for "$v") tclsh $here/travel.tcl write "build/compat/travel/$v.db" ||
    exit 1
done
dbs=""
for v in $versions; do dbs="$dbs build/compat/travel/$v.db"; done

# 3. each version: the suite, the C tests, every database
table=""
travel=""
tp=0
tf=0
for v in $versions; do
  d=build/compat/$v
  log=build/compat/log/$v.log
  echo "== SQLite $v ($(sed -n 's/^shell.c and tclsqlite3.c: //p' $d/SOURCES))"
  # the running library, as the Tcl interface and the shell see it
  got=$(env $(env_for "$v") tclsh <<EOF
load \$env(CUCKOO_TCLSQLITE) Sqlite3
sqlite3 db :memory:
puts [db one {SELECT sqlite_version()}]
EOF
)
  shell=$(env $(env_for "$v") sqlite3 :memory: 'SELECT sqlite_version()')
  ctests=""
  for t in $SQLCTESTS loadver_test; do ctests="$ctests $d/tests/$t"; done
  {
    echo "Tcl interface runs SQLite $got, shell runs SQLite $shell"
    env $(env_for "$v") tclsh tests/run.tcl --ext ./cuckoo.so $ctests
    env $(env_for "$v") tclsh $here/travel.tcl check $dbs
  } >"$log" 2>&1
  grep -E '^[a-z0-9_]+(\.test)? +[0-9]+ passed|^failed:|^- |^! |^travel: [^0-9]' "$log" |
    grep -v '^travel: wrote'
  p=$(sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed$/\1/p' "$log" | tail -1)
  f=$(sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed$/\2/p' "$log" | tail -1)
  s=$(sed -n -E 's/^([0-9]+) skipped .*/\1/p' "$log" | tail -1)
  trp=$(sed -n -E 's/^travel: ([0-9]+) passed, ([0-9]+) failed$/\1/p' "$log")
  trf=$(sed -n -E 's/^travel: ([0-9]+) passed, ([0-9]+) failed$/\2/p' "$log")
  [ -n "$p" ] || { p=0; f=1; }
  [ -n "$trp" ] || { trp=0; trf=1; }
  s=${s:-0}
  # a library other than the one asked for is a failure of the run
  if [ "$got" != "$v" ] || [ "$shell" != "$v" ]; then
    echo "! SQLite $v: the Tcl interface runs $got, the shell $shell"
    f=$((f + 1))
  fi
  tp=$((tp + p + trp))
  tf=$((tf + f + trf))
  table="$table$(printf '| %-7s | %6d | %6d | %7d | %6d | %6d |' \
    "$v" "$p" "$f" "$s" "$trp" "$trf")
"
  row=$(printf '| %-7s |' "$v")
  for w in $versions; do
    if grep -q "^travel: written by $w, read by $v .* ok$" "$log"; then
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
