// bench.mjs: lookups in Chromium for make bench-wasm (tests/wasm/bench.sh),
// timed as tests/wasm/bench_native.c times them natively.  Part of cuckoo
// (MIT License, see LICENSE).
//
// For each size n of bench-config.json: a filter for n integers (error
// rate 0.001) holding 0 .. n-1, then lookups of 0 .. 2n-1 (half present),
// each the median of `rounds` rounds:
//   loop  in WebAssembly, one call for all (CuckooFilter._benchInts)
//   call  one CuckooFilter.contains() per item (the JavaScript API)
//   sql   SELECT count(*) ... WHERE cuckoo_contains(?, i) over 2n rows in
//         the WebAssembly SQLite
// Posts { n: { loop, call, sql } } (lookups per second) to report/bench.json.
import { Database } from './node_modules/sqlite-cuckoo-wasm/sqlite.js';
import { CuckooFilter } from './node_modules/sqlite-cuckoo-wasm/filter.js';

const { sizes, rounds } = await (await fetch('bench-config.json')).json();
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const out = { userAgent: navigator.userAgent };
for (const n of sizes) {
  const f = new CuckooFilter(n, 0.001);
  for (let i = 0; i < n; i++) f.add(i);
  const loop = [];
  const call = [];
  const sql = [];
  let found = 0;
  const db = new Database();
  const st = db.prepare(`WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < ${2 * n - 1})
    SELECT count(*) FROM s WHERE cuckoo_contains(?, i)`);
  const bytes = f.toBytes();
  for (let r = 0; r < rounds; r++) {
    let t = performance.now();
    found = f._benchInts(0, 2 * n);
    loop.push((2 * n) / ((performance.now() - t) / 1000));
    t = performance.now();
    let c = 0;
    for (let i = 0; i < 2 * n; i++) if (f.contains(i)) c++;
    call.push((2 * n) / ((performance.now() - t) / 1000));
    if (c !== found) throw new Error(`contains() found ${c}, the loop ${found}`);
    t = performance.now();
    st.bind([bytes]);
    st.step();
    const s = st.get()[0];
    sql.push((2 * n) / ((performance.now() - t) / 1000));
    if (s !== found) throw new Error(`SQL found ${s}, the loop ${found}`);
  }
  st.free();
  db.close();
  f.free();
  out[n] = { loop: median(loop), call: median(call), sql: median(sql), found };
}
await fetch('report/bench.json', { method: 'POST', body: JSON.stringify(out) });
await fetch('report/done', { method: 'POST', body: '' });
