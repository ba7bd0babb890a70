#!/bin/sh
# suite.sh: run test commands one after the other and add up their
# results into one closing line "N passed, N failed" (exit status 1 if
# anything failed).
#
#   sh tests/suite.sh "make check" "make asan" "make test-fuzz"
#
# Each command's output is shown as it runs and kept in
# build/suite/<n>.log.  The summary gives each command's wall seconds
# and CPU seconds (user+sys of everything it ran, from `times`: on a
# shared machine the CPU figure is the one to compare).  What a command counts is its closing line, read
# by tests/counts.awk (the rule every harness applies): its last line
# "N passed, N failed" (bare, or after a name: "core_test: N passed,
# N failed"); a command that reports no count, or exits non-zero without
# reporting a failure (a build error, a crash), counts one failure more.

counts_awk=$(dirname "$0")/counts.awk

# The CPU seconds (user+sys) of this shell's finished children so far,
# into build/suite/cpu: `times` run by this shell itself (in a command
# substitution it would report the subshell's children).
children_cpu() {
  times > build/suite/times
  awk 'NR == 2 { split($0, t, /[ms ]+/); print t[1] * 60 + t[2] + t[3] * 60 + t[4] }' \
    build/suite/times > build/suite/cpu
}

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
  children_cpu
  cpu0=$(cat build/suite/cpu)
  { sh -c "$cmd"; echo $? > build/suite/$n.rc; } 2>&1 | tee "$log"
  rc=$(cat build/suite/$n.rc)
  secs=$(($(date +%s) - start))
  children_cpu
  cpu=$(awk -v a="$cpu0" -v b="$(cat build/suite/cpu)" 'BEGIN { printf "%d", b - a + 0.5 }')
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
  summary="$summary$(printf '%-60s %8d passed %4d failed %6ds %6ds cpu' "$cmd" "$p" "$f" "$secs" "$cpu")
"
done
echo "== summary"
printf '%s' "$summary"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
