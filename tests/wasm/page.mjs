// page.mjs: the WebAssembly tests in Chromium, loaded by page.html from
// the scratch project tests/wasm/run.sh made (the package installed in
// node_modules, native.json and the snippets beside it).  Part of cuckoo
// (MIT License, see LICENSE).
//
// Runs tests/wasm/cases.mjs (every value and byte against the native
// extension), then each ```html snippet of the docs (snippets.json, made
// by snippets.mjs) with console.log captured, and posts its lines to
// report/chromium.txt, the exported database to report/chromium.db, then
// report/done.
import { Database, SQLiteError, sqliteVersion } from './node_modules/sqlite-cuckoo-wasm/sqlite.js';
import { CuckooFilter } from './node_modules/sqlite-cuckoo-wasm/filter.js';
import { run } from './cases.mjs';

const lines = [];
const t = {
  ok: (name) => lines.push(`ok: chromium: ${name}`),
  bad: (name, detail) => lines.push(`FAILED: chromium: ${name}: ${detail}`),
};
const post = (name, body) => fetch(`report/${name}`, { method: 'POST', body });

try {
  lines.push(`# ${navigator.userAgent}; SQLite ${sqliteVersion} in WebAssembly`);
  const native = await (await fetch('native.json')).json();
  const { exported } = await run(t, { Database, SQLiteError, CuckooFilter, native });
  await post('chromium.db', exported);
  const snippets = await (await fetch('snippets.json')).json();
  const log = console.log;
  for (const s of snippets) {
    const out = [];
    console.log = (...args) => out.push(args.map(String).join(' '));
    let err = '';
    try {
      await import(`./${s.browser}`);
    } catch (e) {
      err = `\n${e}`;
    }
    console.log = log;
    const got = out.join('\n') + err;
    if (got === s.want) t.ok(`${s.where.replace(', node)', ', chromium)')}: printed ${JSON.stringify(got)}`);
    else t.bad(`${s.where.replace(', node)', ', chromium)')}`, `printed ${JSON.stringify(got)}, the page says ${JSON.stringify(s.want)}`);
  }
} catch (e) {
  t.bad('page', e && e.stack ? e.stack : String(e));
}
await post('chromium.txt', lines.join('\n') + '\n');
await post('done', '');
