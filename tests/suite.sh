#!/bin/sh
# suite.sh: run test commands one after the other and add up their
# results into one closing line "N passed, N failed" (exit status 1 if
# anything failed).
#
#   sh tests/suite.sh "make check" "make asan" "make test-fuzz"
#
# Each command's output is shown as it runs and kept in
# build/suite/<n>.log.  What a command counts is its closing line, read
# by tests/counts.awk (the rule every harness applies): its last line
# "N passed, N failed" (bare, or after a name: "core_test: N passed,
# N failed"); a command that reports no count, or exits non-zero without
# reporting a failure (a build error, a crash), counts one failure more.

counts_awk=$(dirname "$0")/counts.awk

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
  p=0
  f=1
  if counts=$(awk -f "$counts_awk" "$log"); then
    p=${counts%% *}
    f=${counts#* }
    f=${f%% *}
  fi
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
