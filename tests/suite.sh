#!/bin/sh
# suite.sh: run test commands one after the other and add up their
# results into one closing line "N passed, N failed" (exit status 1 if
# anything failed).
#
#   sh tests/suite.sh "make check" "make asan" "make test-fuzz"
#
# Each command's output is shown as it runs and kept in
# build/suite/<n>.log.  What a command counts: the sum of its bare
# "N passed, N failed" lines (tests/run.tcl and the fuzz runner end with
# one), or else its last "<name>: N passed, N failed" line (a C test run
# on its own).  A command that exits non-zero without reporting a
# failure counts as one failure (a build error, a crash).

mkdir -p build/suite
total_pass=0
total_fail=0
summary=""
n=0
for cmd in "$@"; do
  n=$((n + 1))
  log=build/suite/$n.log
  echo "== $cmd"
  start=$(date +%s)
  { sh -c "$cmd"; echo $? > build/suite/$n.rc; } 2>&1 | tee "$log"
  rc=$(cat build/suite/$n.rc)
  secs=$(($(date +%s) - start))
  counts=$(sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$log")
  if [ -z "$counts" ]; then
    counts=$(sed -n -E \
      's/^[A-Za-z0-9_.-]+: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$log" |
      tail -1)
  fi
  p=0
  f=0
  # shellcheck disable=SC2086
  set -- $counts
  while [ $# -ge 2 ]; do
    p=$((p + $1))
    f=$((f + $2))
    shift 2
  done
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
  summary="$summary$(printf '%-60s %8d passed %4d failed %6ds' "$cmd" "$p" "$f" "$secs")
"
done
echo "== summary"
printf '%s' "$summary"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
