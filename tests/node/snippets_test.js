// snippets_test.js: every ```js block of the given Markdown files runs and
// prints what the page says it prints.
// Copyright (c) 2026 the cuckoo authors. MIT License: see LICENSE.
//
//   node tests/node/snippets_test.js DIR FILE.md...
//
// Each block is written to DIR, a folder inside a project that has the
// clients and sqlite-cuckoo (so that its require() calls find them), and
// run with node in the repository's root (where `make` leaves
// ./cuckoo.so). Its expected output is the ```text block right after it
// (only blank lines between), else the trailing `// ...` comments of its
// console.log lines, one line each, in order; a block with neither fails.
// Prints "ok: ..." / "FAILED: ..." lines and "js blocks: N" per file.
'use strict';

const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..', '..');
const [dir, ...files] = process.argv.slice(2);
fs.mkdirSync(dir, { recursive: true });

const blocks = (file, lang) => JSON.parse(execFileSync('python3',
  [path.join(root, 'tests', 'snippets.py'), file, lang], { encoding: 'utf8' }));

let failed = 0;
for (const file of files) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const texts = blocks(file, 'text');
  const js = blocks(file, 'js');
  js.forEach((b, n) => {
    const where = `${path.relative(root, file)}:${b.line} (js block ${n})`;
    const end = b.line + b.code.split('\n').length; // its closing fence, 1-based
    const next = texts.find((t) => t.line > end);
    let want;
    if (next && lines.slice(end, next.line - 1).every((l) => !l.trim())) {
      want = next.code.replace(/\n$/, '');
    } else {
      want = b.code.split('\n').filter((l) => l.includes('console.log('))
        .map((l) => /\/\/ (.*)$/.exec(l)).filter(Boolean).map((m) => m[1]).join('\n');
    }
    const script = path.join(dir, `${path.basename(file, '.md')}-${n}.js`);
    fs.writeFileSync(script, b.code);
    const r = spawnSync(process.execPath, [script], { cwd: root, encoding: 'utf8', timeout: 60000 });
    const got = (r.stdout + (r.status === 0 ? '' : r.stderr)).replace(/\n$/, '');
    if (!want) {
      failed++;
      console.log(`FAILED: ${where}: the page says nothing about its output`);
    } else if (r.status === 0 && got === want) {
      console.log(`ok: ${where}: printed ${JSON.stringify(got)}`);
    } else {
      failed++;
      console.log(`FAILED: ${where}: printed ${JSON.stringify(got)} (exit ${r.status}), the page says ${JSON.stringify(want)}`);
    }
  });
  console.log(`js blocks: ${js.length} in ${path.relative(root, file)}`);
}
process.exitCode = failed ? 1 : 0;
