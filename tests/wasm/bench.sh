#!/bin/sh
# bench.sh: lookups in headless Chromium against native (make bench-wasm).
# Part of cuckoo (MIT License, see LICENSE).
#
#   CORESRC="ext/..." sh tests/wasm/bench.sh [SIZES] [ROUNDS]
#
# SIZES (default "10000 100000"): filters for n integers, error rate
# 0.001, holding 0 .. n-1, probed with 0 .. 2n-1 (half present); each
# figure the median of ROUNDS (default 5) rounds:
#   loop  the core's lookup in a C loop: tests/wasm/bench_native.c (gcc
#         -O2) against the same C in bindings/wasm/cuckoo-filter.wasm
#   call  one lookup per call: ckf_op() natively, CuckooFilter.contains()
#         in Chromium
#   sql   SELECT count(*) ... WHERE cuckoo_contains(?, i) over 2n rows:
#         ./cuckoo.so in Debian's python3 sqlite3 against the WebAssembly
#         SQLite in Chromium
# Prints a Markdown table with the ratio Chromium / native.
set -eu
unset NODE_PATH
sizes=${1:-10000 100000}
rounds=${2:-5}
root=$(pwd)
work=$root/build/wasm-bench
rm -rf "$work" && mkdir -p "$work/project/node_modules"
gcc -O2 -Iext -o "$work/bench_native" tests/wasm/bench_native.c \
  bindings/wasm/src/filter.c $CORESRC -lm
cp -r bindings/wasm "$work/project/node_modules/sqlite-cuckoo-wasm"
cp tests/wasm/bench.html tests/wasm/bench.mjs "$work/project/"
json_sizes=$(echo "$sizes" | sed 's/ \+/, /g')
echo "{\"sizes\": [$json_sizes], \"rounds\": $rounds}" > "$work/project/bench-config.json"
sh tests/wasm/browser.sh "$work/project" bench.html "$work/out" 900
for n in $sizes; do
  "$work/bench_native" "$n" "$rounds" > "$work/native-$n.json"
  /usr/bin/python3 - "$n" "$rounds" > "$work/sql-$n.json" <<'PY'
import json, sqlite3, statistics, sys, time
n, rounds = int(sys.argv[1]), int(sys.argv[2])
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension("./cuckoo.so")
f = con.execute("SELECT cuckoo_new(?, 0.001)", (n,)).fetchone()[0]
for i in range(n):
    f = con.execute("SELECT cuckoo_add(?, ?)", (f, i)).fetchone()[0]
sql = ("WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < %d) "
       "SELECT count(*) FROM s WHERE cuckoo_contains(?, i)" % (2 * n - 1))
rates = []
for r in range(rounds):
    t = time.perf_counter()
    found = con.execute(sql, (f,)).fetchone()[0]
    rates.append(2 * n / (time.perf_counter() - t))
print(json.dumps({"sql": statistics.median(rates), "found": found,
                  "sqlite": sqlite3.sqlite_version}))
PY
done
node - "$work" "$sizes" <<'JS'
const fs = require('fs');
const [work, sizes] = process.argv.slice(2);
const web = JSON.parse(fs.readFileSync(`${work}/out/bench.json`, 'utf8'));
if (web.error) throw new Error(web.error);
const m = (x) => (x / 1e6).toFixed(1);
console.log(`Chromium: ${web.userAgent}`);
console.log('| lookups | n | native (M/s) | Chromium (M/s) | Chromium / native |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const n of sizes.trim().split(/\s+/)) {
  const nat = JSON.parse(fs.readFileSync(`${work}/native-${n}.json`, 'utf8'));
  const sql = JSON.parse(fs.readFileSync(`${work}/sql-${n}.json`, 'utf8'));
  const w = web[n];
  // The same filter everywhere (cuckoo_new + cuckoo_add one by one is
  // byte for byte new CuckooFilter + add): the same hits.
  if (w.found !== sql.found || nat.found !== sql.found) {
    throw new Error(`hits differ: Chromium ${w.found}, native ${nat.found}, native SQL ${sql.found}`);
  }
  for (const [what, a, b] of [
    ['core loop (same C)', nat.loop, w.loop],
    ['one call per item', nat.call, w.call],
    [`SQL cuckoo_contains (native SQLite ${sql.sqlite})`, sql.sql, w.sql],
  ]) {
    console.log(`| ${what} | ${Number(n).toLocaleString('en-US')} | ${m(a)} | ${m(b)} | ${(b / a).toFixed(2)} |`);
  }
}
JS
