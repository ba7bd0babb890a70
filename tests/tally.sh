# tally.sh: the pass/fail counters of the shell tests, sourced by each
# (`. tests/tally.sh` from the top of the repository).  Part of cuckoo
# (MIT License, see LICENSE).
#
#   ok NAME / bad NAME     count a pass or a failure and say so
#   check NAME CMD...      passes when CMD exits 0
#   finish                 prints "N passed, N failed"; status 1 on failures
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAILED: $1"; }
check() {
  name=$1; shift
  if "$@"; then ok "$name"; else bad "$name"; fi
}
finish() {
  echo "$pass passed, $fail failed"
  [ $fail = 0 ]
}
