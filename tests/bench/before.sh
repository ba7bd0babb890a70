#!/bin/sh
# tests/bench/before.sh: `make bench-before`.  The bulk load of a cuckoo
# table (tests/bench/bulk_load.c) built against ext/ of the working tree
# and against ext/ of an older commit, run alternately ROUNDS times in one
# session; prints the medians and the after/before ratio of each measure.
#
#   sh tests/bench/before.sh [COMMIT [ROUNDS]]
#
# COMMIT (any name git knows: a hash, main, a tag) defaults to main;
# ROUNDS to 3.  BENCH_N (default 10000000) is the number of random items.
# Run from the repository root (it needs git).
set -eu
before=${1:-main}
rounds=${2:-3}
n=${BENCH_N:-10000000}
cc=${CC:-gcc}
top=build/bench
old=$top/before-$before
rm -rf "$old"
mkdir -p "$old"
git archive "$before" ext | tar -x -C "$old"
$cc -O2 -DSQLITE_CORE -I"$old/ext" -o "$old/bulk_load" tests/bench/bulk_load.c \
  "$old"/ext/*.c -lsqlite3 -lm -lxxhash
$cc -O2 -DSQLITE_CORE -Iext -o "$top/bulk_load" tests/bench/bulk_load.c \
  ext/*.c -lsqlite3 -lm -lxxhash
db=$top/bulk_load.db
out=$top/before.out
rm -f "$db" "$out"
echo "bulk load, before ($before, $(git rev-parse --short "$before")) and after ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- ext || echo ', with changes')): $rounds rounds, N = $n"
i=1
while [ "$i" -le "$rounds" ]; do
  "$old/bulk_load" "$db" "$n" | sed 's/^/before /' >>"$out"
  "$top/bulk_load" "$db" "$n" | sed 's/^/after /' >>"$out"
  i=$((i + 1))
done
rm -f "$db"
awk '
function median(s,   a, k, m, i, j, t) {
  k = split(s, a, " ")
  for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
    if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
  return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
{
  v[$1 " " $2] = v[$1 " " $2] " " $3
  if (!($2 in seen)) { seen[$2] = 1; order[++no] = $2 }
  if ($1 == "before") last[$2] = $3
  else r[$2] = r[$2] " " $3 / last[$2]
}
END {
  print ""
  print "| measure (items per CPU second) | before, median | after, median | after / before | ratio of each round: median (range) |"
  print "| --- | ---: | ---: | ---: | --- |"
  for (i = 1; i <= no; i++) {
    m = order[i]; b = median(v["before " m]); a = median(v["after " m])
    k = split(r[m], x, " "); lo = hi = x[1]
    for (j = 2; j <= k; j++) { if (x[j] < lo) lo = x[j]; if (x[j] > hi) hi = x[j] }
    printf "| %s | %.2f M/s | %.2f M/s | %.2fx | %.2fx (%.2f-%.2f) |\n", \
      m, b / 1e6, a / 1e6, a / b, median(r[m]), lo, hi
  }
}' "$out"
