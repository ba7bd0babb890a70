// server.mjs: a static HTTP server on 127.0.0.1 for the browser tests
// (tests/wasm/browser.sh), that also takes the page's reports.  Part of
// cuckoo (MIT License, see LICENSE).
//
//   node server.mjs DIR PORTFILE OUTDIR SECONDS
//
// Serves the files under DIR (GET), writes the port it listens on (chosen
// by the system) to PORTFILE, and saves the body of each POST /report/NAME
// to OUTDIR/NAME.  POST /report/done ends it (exit 0); so does nothing
// after SECONDS seconds (exit 1: the page never finished).
import { createServer } from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const [dir, portFile, outDir, seconds] = process.argv.slice(2);
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};
const root = path.resolve(dir);

const server = createServer(async (req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  const name = decodeURIComponent(url.pathname);
  if (req.method === 'POST' && name.startsWith('/report/')) {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const what = path.basename(name);
    if (what !== 'done') await writeFile(path.join(outDir, what), Buffer.concat(chunks));
    res.writeHead(204).end();
    if (what === 'done') {
      server.close();
      process.exit(0);
    }
    return;
  }
  const file = path.resolve(root, '.' + name);
  if (req.method !== 'GET' || !file.startsWith(root + path.sep)) {
    res.writeHead(403).end();
    return;
  }
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
});
server.listen(0, '127.0.0.1', () => writeFileSync(portFile, String(server.address().port)));
setTimeout(() => {
  console.error(`server.mjs: no report after ${seconds} s`);
  process.exit(1);
}, Number(seconds) * 1000).unref();
