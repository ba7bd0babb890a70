// snippets.mjs: the ```sh blocks of the section "In the browser
// (WebAssembly)" (run first, in DIR: they make the files the pages
// fetch), every ```mjs block (Node, ES module) and every ```html
// block (a page; its <script type="module"> run in Node here, and in
// Chromium by browser.sh) of the given Markdown files runs and prints
// what the page says it prints.  Part of cuckoo (MIT License, see LICENSE).
//
//   node snippets.mjs ROOT DIR FILE.md...
//
// DIR is a project with sqlite-cuckoo-wasm installed and the files the
// snippets fetch (tests/wasm/run.sh puts them there); each block is
// written to DIR and run there, so 'sqlite-cuckoo-wasm' and
// './node_modules/sqlite-cuckoo-wasm/...' both resolve.  In an html block,
// fetch() of a relative URL reads the file from DIR (the page's folder).
// For Chromium each html block's script is also written to DIR as is,
// and listed with its expected output in DIR/snippets.json (page.mjs
// imports each).
// The expected output is the ```text block right after the block (only
// blank lines between), else the trailing `// ...` comments of its
// console.log lines, in order; a block with neither fails.  Prints
// ok:/FAILED: lines.
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';

const [root, dir, ...files] = process.argv.slice(2);
const blocks = (file, lang) => JSON.parse(execFileSync('python3',
  [path.join(root, 'tests', 'snippets.py'), file, lang], { encoding: 'utf8' }));

// The module script of a page, and a prelude that serves relative fetches
// from the page's folder.
export function pageScript(html) {
  const m = /<script type="module">\n?([\s\S]*?)<\/script>/.exec(html);
  return m ? m[1] : null;
}
const prelude = `import { readFile as __readFile } from 'node:fs/promises';
{ const real = globalThis.fetch;
  globalThis.fetch = async (url, opts) => /^[a-z]+:/i.test(String(url)) ? real(url, opts)
    : new Response(await __readFile(new URL(String(url), import.meta.url))); }
`;

let failed = 0;
const forBrowser = [];
for (const file of files) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const texts = blocks(file, 'text');
  const section = (line) => {
    let h = '';
    for (let i = 0; i < line - 1; i++) if (lines[i].startsWith('## ')) h = lines[i];
    return h;
  };
  for (const lang of ['sh', 'mjs', 'html']) {
    blocks(file, lang).forEach((b, n) => {
      if (lang === 'sh' && section(b.line) !== '## In the browser (WebAssembly)') return;
      const where = `${path.relative(root, file)}:${b.line} (${lang} block ${n}${lang === 'sh' ? '' : ', node'})`;
      const end = b.line + b.code.split('\n').length;
      const next = texts.find((t) => t.line > end);
      let code = b.code;
      if (lang === 'html') {
        code = pageScript(b.code);
        if (code === null) {
          failed++;
          console.log(`FAILED: ${where}: no <script type="module"> in the page`);
          return;
        }
      }
      let want;
      if (next && lines.slice(end, next.line - 1).every((l) => !l.trim())) {
        want = next.code.replace(/\n$/, '');
      } else {
        want = code.split('\n').filter((l) => l.includes('console.log('))
          .map((l) => /\/\/ (.*)$/.exec(l)).filter(Boolean).map((m) => m[1]).join('\n');
      }
      const base = `${path.basename(file, '.md')}-${lang}-${n}`;
      if (lang === 'html') {
        writeFileSync(path.join(dir, `${base}.browser.mjs`), code);
        forBrowser.push({ where, browser: `${base}.browser.mjs`, want });
        code = prelude + code;
      }
      const script = path.join(dir, `${base}.${lang === 'sh' ? 'sh' : 'mjs'}`);
      writeFileSync(script, code);
      const r = spawnSync(lang === 'sh' ? 'sh' : process.execPath, [script],
        { cwd: dir, encoding: 'utf8', timeout: 60000 });
      const got = (r.stdout + (r.status === 0 ? '' : r.stderr)).replace(/\n$/, '');
      if (!want && lang === 'sh' && r.status === 0) {
        console.log(`ok: ${where}: exit 0`);
      } else if (!want) {
        failed++;
        console.log(`FAILED: ${where}: the page says nothing about its output`);
      } else if (r.status === 0 && got === want) {
        console.log(`ok: ${where}: printed ${JSON.stringify(got)}`);
      } else {
        failed++;
        console.log(`FAILED: ${where}: printed ${JSON.stringify(got)} (exit ${r.status}), the page says ${JSON.stringify(want)}`);
      }
    });
  }
}
writeFileSync(path.join(dir, 'snippets.json'), JSON.stringify(forBrowser));
process.exitCode = failed ? 1 : 0;
