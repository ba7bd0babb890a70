// node_test.mjs: the package sqlite-cuckoo-wasm in Node, against the
// native extension (tests/wasm/cases.mjs).  Part of cuckoo (MIT License,
// see LICENSE).
//
//   node node_test.mjs NATIVE.json OUT.db
//
// Run from a project that has the package installed (tests/wasm/run.sh):
// it imports 'sqlite-cuckoo-wasm' and 'sqlite-cuckoo-wasm/filter' by name.
// Writes the database the WebAssembly SQLite exported to OUT.db (for
// native.py --check) and prints ok:/FAILED: lines.
import { readFileSync, writeFileSync } from 'node:fs';
import { Database, SQLiteError, sqliteVersion } from 'sqlite-cuckoo-wasm';
import { CuckooFilter } from 'sqlite-cuckoo-wasm/filter';
import { run } from './cases.mjs';

const [nativePath, outDb] = process.argv.slice(2);
const native = JSON.parse(readFileSync(nativePath, 'utf8'));
let failed = 0;
const t = {
  ok: (name) => console.log(`ok: node: ${name}`),
  bad: (name, detail) => {
    failed++;
    console.log(`FAILED: node: ${name}: ${detail}`);
  },
};
console.log(`# SQLite ${sqliteVersion} in WebAssembly; native: SQLite ${native.sqlite_version}, cuckoo ${native.cuckoo_version}`);
const { exported } = await run(t, { Database, SQLiteError, CuckooFilter, native });
writeFileSync(outDb, exported);
process.exitCode = failed ? 1 : 0;
