# counts.awk: the one parser of the closing line "N passed, N failed",
# used by every harness (tests/suite.sh, tests/run.tcl, tests/compat/run.sh,
# tests/cross/run.sh, tests/python/run.py).  Part of cuckoo (MIT License,
# see LICENSE).
#
#   awk -f tests/counts.awk [-v name=NAME | -v bare=1] [FILE...]
#
# A count line is "N passed, N failed", bare or after a name without
# spaces and a colon ("core_test: N passed, N failed"), optionally with
# ", N skipped", and nothing after but blanks.  Prints "PASSED FAILED
# SKIPPED" of the last count line of the input (SKIPPED 0 when not said)
# and exits 0; prints nothing and exits 1 when there is none.  With
# name=NAME only "NAME: ..." lines count, with bare=1 only bare ones.
#
# The rule every harness then applies: a run that reports no count, or
# exits non-zero without reporting a failure (a build error, a crash),
# counts one failure more.

{
  line = $0
  sub(/[ \t\r]+$/, "", line)
  if (match(line, /(^|: )[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$/) == 0)
    next
  head = substr(line, 1, RSTART - 1)
  tail = substr(line, RSTART)
  sub(/^: /, "", tail)
  if (RSTART > 1) {
    if (head ~ /[ \t]/ || bare) next
  } else if (name != "") next
  if (name != "" && head != name) next
  n = split(tail, w, /[ ,]+/)
  p = w[1]; f = w[3]; s = (n >= 6) ? w[5] : 0
  found = 1
}

END {
  if (!found) exit 1
  print p, f, s
}
