// install.js: build the cuckoo extension from source when the package is
// installed (the package's "install" script), and bundle its source when
// it is packed.
// Copyright (c) 2026 the cuckoo authors. MIT License: see LICENSE.
//
//   node install.js             build build/cuckoo.so (.dylib on macOS)
//   node install.js --bundle    (prepack) write the one-file source
//                               src/cuckoo.c, src/cuckoo.h and LICENSE from
//                               the repository around this folder
//   node install.js --unbundle  (postpack) remove them again
//
// The build compiles one file, the amalgamation of dist/amalgamate.sh:
// the copy bundled in the tarball (src/cuckoo.c) when there is one, else
// one generated from the repository (installing from a checkout, where
// `npm install ./bindings/node` links this folder). It needs a C compiler
// ($CC, default cc; $CFLAGS, default -O2; $CPPFLAGS) and the headers
// sqlite3ext.h and xxhash.h. No node-gyp: the extension talks to SQLite
// only through the API pointer SQLite hands it, so it links nothing but
// libm.
'use strict';

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const here = __dirname;
const pkg = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));
const repo = path.resolve(here, '..', '..');
const inRepo = fs.existsSync(path.join(repo, 'dist', 'amalgamate.sh')) &&
  fs.existsSync(path.join(repo, 'ext', 'cuckoo.h'));
const bundled = path.join(here, 'src', 'cuckoo.c');
const { getLoadablePath } = require('./index.js');

function fail(msg) {
  console.error('sqlite-cuckoo: ' + msg);
  process.exit(1);
}

// The version the C source declares: CUCKOO_VERSION in cuckoo.h, or the
// first line of the amalgamation's header ("** cuckoo X.Y.Z: ...").
function sourceVersion(text) {
  const m = /#define CUCKOO_VERSION "([^"]*)"/.exec(text) ||
    /^\*\* cuckoo (\S+): /m.exec(text);
  return m ? m[1] : null;
}

function checkVersion(text, where) {
  const v = sourceVersion(text);
  if (v !== pkg.version) {
    fail(`package.json says version ${pkg.version} but ${where} is cuckoo ${v}; ` +
      'ext/cuckoo.h (CUCKOO_VERSION) is the one source of the version: update package.json');
  }
}

function amalgamate() {
  checkVersion(fs.readFileSync(path.join(repo, 'ext', 'cuckoo.h'), 'utf8'), 'ext/cuckoo.h');
  const r = spawnSync('sh', [path.join(repo, 'dist', 'amalgamate.sh')],
    { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) fail('dist/amalgamate.sh failed: ' + (r.stderr || r.error));
  return r.stdout;
}

function bundle() {
  if (!inRepo) {
    if (fs.existsSync(bundled)) return; // repacking an unpacked tarball
    fail('--bundle needs the repository around bindings/node (dist/, ext/)');
  }
  fs.mkdirSync(path.join(here, 'src'), { recursive: true });
  fs.writeFileSync(bundled, amalgamate());
  fs.copyFileSync(path.join(repo, 'ext', 'cuckoo.h'), path.join(here, 'src', 'cuckoo.h'));
  fs.copyFileSync(path.join(repo, 'LICENSE'), path.join(here, 'LICENSE'));
}

function unbundle() {
  if (!inRepo) return;
  fs.rmSync(path.join(here, 'src'), { recursive: true, force: true });
  fs.rmSync(path.join(here, 'LICENSE'), { force: true });
}

function words(s, dflt) {
  return s === undefined ? dflt : s.split(/\s+/).filter(Boolean);
}

// Like dist/check-headers.sh: name the package of a missing header
// before the compiler fails on it.
function checkHeaders(cc, cppflags) {
  const missing = [];
  for (const [h, deb] of [['sqlite3ext.h', 'libsqlite3-dev'], ['xxhash.h', 'libxxhash-dev']]) {
    const r = spawnSync(cc, [...cppflags, '-E', '-x', 'c', '-'],
      { input: `#include <${h}>\n`, stdio: ['pipe', 'ignore', 'ignore'] });
    if (r.error) fail(`cannot run the C compiler "${cc}" (${r.error.message}); set CC or install one (Debian: gcc)`);
    if (r.status !== 0) {
      console.error(`sqlite-cuckoo: ${h} not found; it comes with ${deb}`);
      missing.push(deb);
    }
  }
  if (missing.length) {
    fail('install the build dependencies, then `npm rebuild sqlite-cuckoo`; ' +
      `on Debian or Ubuntu: sudo apt-get install ${missing.join(' ')}`);
  }
}

function build() {
  const lib = path.join(here, 'build', process.platform === 'darwin' ? 'cuckoo.dylib' : 'cuckoo.so');
  fs.mkdirSync(path.dirname(lib), { recursive: true });
  let src;
  let from;
  if (fs.existsSync(bundled)) {
    checkVersion(fs.readFileSync(bundled, 'utf8').slice(0, 4096), 'src/cuckoo.c');
    src = bundled;
    from = 'the bundled src/cuckoo.c';
  } else if (inRepo) {
    src = path.join(here, 'build', 'cuckoo.c');
    fs.writeFileSync(src, amalgamate());
    from = 'the repository (' + repo + ')';
  } else {
    fail('no source to build: src/cuckoo.c is missing and this folder is not inside the cuckoo repository');
  }
  const cc = process.env.CC || 'cc';
  const cppflags = words(process.env.CPPFLAGS, []);
  checkHeaders(cc, cppflags);
  const shared = process.platform === 'darwin' ? ['-dynamiclib'] : ['-shared'];
  const tmp = lib + '.tmp' + process.pid;
  const args = [...words(process.env.CFLAGS, ['-O2']), ...cppflags, '-fPIC', ...shared,
    src, '-o', tmp, '-lm'];
  const r = spawnSync(cc, args, { stdio: 'inherit' });
  if (r.status !== 0) {
    fs.rmSync(tmp, { force: true });
    fail(`building the extension failed: ${cc} ${args.join(' ')}`);
  }
  fs.renameSync(tmp, lib);
  if (getLoadablePath() !== lib) fail('internal error: index.js looks for ' + getLoadablePath());
  console.log(`sqlite-cuckoo: built ${lib} from ${from} (cuckoo ${pkg.version})`);
}

const mode = process.argv[2];
if (mode === '--bundle') bundle();
else if (mode === '--unbundle') unbundle();
else if (mode === undefined) build();
else fail('unknown argument ' + mode + ' (use --bundle, --unbundle or nothing)');
