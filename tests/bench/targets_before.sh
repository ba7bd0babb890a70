#!/bin/sh
# tests/bench/targets_before.sh: `make bench-targets-before`.  The table of
# `make bench-targets` (tests/bench/target_bench.c) for two builds of the
# loadable extension, run alternately ROUNDS times in one session: ./cuckoo.so
# of the working tree ("after") and a cuckoo.so built, with the same flags,
# from ext/ of another commit ("before").  The one program loads each build
# through $CUCKOO_EXT, so only the extension differs; its core-lookup rows
# call the core compiled into the program and are the same code on both
# sides (they show how much the machine's speed moved).  Prints, per row,
# the median of each side's ratio to its alternative (measured in the same
# run as it), the medians of each side's own figure, and the change.
#
#   sh tests/bench/targets_before.sh [COMMIT [ROUNDS]]
#
# COMMIT (any name git knows) defaults to main; ROUNDS to 3.  Run from the
# repository root, after `make cuckoo.so build/bench/target_bench` (the
# make target does that).  BENCH_SCALE divides every size, as for
# target_bench.
set -eu
before=${1:-main}
rounds=${2:-3}
cc=${CC:-gcc}
top=build/bench
old=$top/targets-before-$before
rm -rf "$old"
mkdir -p "$old"
git archive "$before" ext | tar -x -C "$old"
$cc -O2 -g -DNDEBUG -fPIC -shared -fvisibility=hidden -o "$old/cuckoo.so" \
  "$old"/ext/*.c -lm
out=$top/targets-before.out
rm -f "$out"
echo "bench-targets, before ($before, $(git rev-parse --short "$before")) and after ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- ext || echo ', with changes')): $rounds rounds"
i=1
while [ "$i" -le "$rounds" ]; do
  for side in before after; do
    if [ "$side" = before ]; then ext=$old/cuckoo.so; else ext=./cuckoo.so; fi
    CUCKOO_EXT=$ext "$top/target_bench" |
      awk -F'|' -v s="$side" '/^\| / && $2 !~ /measure|---/ {
        gsub(/^ +| +$/, "", $2); split($3, o, " "); split($5, r, "x")
        gsub(/ /, "", r[1]); print s "\t" $2 "\t" o[1] "\t" o[2] "\t" r[1] }' >>"$out"
  done
  i=$((i + 1))
done
awk -F'\t' '
function median(s,   a, k, i, j, t) {
  k = split(s, a, " ")
  for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
    if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
  return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
{
  if (!($2 in seen)) { seen[$2] = 1; order[++no] = $2 }
  v[$1 SUBSEP $2] = v[$1 SUBSEP $2] " " $3
  unit[$2] = $4
  if ($5 != "") q[$1 SUBSEP $2] = q[$1 SUBSEP $2] " " $5
}
END {
  print ""
  print "| measure | before: ratio | after: ratio | after slower by (ratio) | before | after | after slower by |"
  print "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  for (i = 1; i <= no; i++) {
    m = order[i]; b = median(v["before" SUBSEP m]); a = median(v["after" SUBSEP m])
    # a time (s) is slower when larger; a rate (M/s) when smaller
    slow = unit[m] == "s" ? a / b - 1 : b / a - 1
    if (q["before" SUBSEP m] != "" && unit[m] == "s") {
      qb = median(q["before" SUBSEP m]); qa = median(q["after" SUBSEP m])
      # a ratio of times is slower when larger; a speed-up when smaller
      qs = m ~ /speed-up/ ? qb / qa - 1 : qa / qb - 1
      printf "| %s | %.3fx | %.3fx | %+.1f%% | %.3f %s | %.3f %s | %+.1f%% |\n", \
        m, qb, qa, qs * 100, b, unit[m], a, unit[m], slow * 100
    } else {
      printf "| %s | | | | %.3f %s | %.3f %s | %+.1f%% |\n", \
        m, b, unit[m], a, unit[m], slow * 100
    }
  }
}' "$out"
