// client_test.js: the sqlite-cuckoo package with real npm clients,
// better-sqlite3 (synchronous) and sqlite3 (callbacks).
// Copyright (c) 2026 the cuckoo authors. MIT License: see LICENSE.
//
//   cd <project> && CUCKOO_VERSION=X.Y.Z node client_test.js LABEL LIBDIR
//
// Copied into a scratch project that has the clients and sqlite-cuckoo
// (installed from the repository path or the packed tarball); LIBDIR is the
// directory where its built library must be. For each client: filters
// made with cuckoo_new/cuckoo_add and cuckoo_agg, probed in a join, their
// BLOBs through the client's Buffer; a cuckoo virtual table in a file
// database across rollback and commit, seen from a second connection; the
// function's error message on the client's Error; and load() in each of
// its forms. Prints "ok: ..." / "FAILED: ..." lines (tests/node/run.sh
// counts them).
'use strict';

const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [label, libDir] = process.argv.slice(2);
const VERSION = process.env.CUCKOO_VERSION;
let failures = 0;

async function test(name, fn) {
  try {
    await fn();
    console.log(`ok: ${label}: ${name}`);
  } catch (err) {
    failures++;
    console.log(`FAILED: ${label}: ${name}: ${err && err.stack ? err.stack : err}`);
  }
}

const cuckoo = require('sqlite-cuckoo');
const Better = require('better-sqlite3');
const sqlite3 = require('sqlite3');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cuckoo-node-'));

const SETUP = `
CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT, team TEXT);
INSERT INTO users(email, team) VALUES
  ('ann@x.org', 'red'), ('bob@x.org', 'red'), ('cy@x.org', 'blue'),
  ('dee@x.org', 'blue'), ('eve@x.org', 'green');
CREATE TABLE blocked(email TEXT);
INSERT INTO blocked VALUES ('bob@x.org'), ('eve@x.org'), ('zed@x.org');
CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);
INSERT INTO filters SELECT 'blocked', cuckoo_agg(email) FROM blocked;
INSERT INTO filters VALUES ('vip', cuckoo_add(cuckoo_new(100), 'ann@x.org', 'dee@x.org'));
INSERT INTO filters SELECT 'team:' || team, cuckoo_agg(email, 0.01) FROM users GROUP BY team;
`;
const JOIN = `SELECT u.email, f.name FROM users u JOIN filters f
  ON cuckoo_contains(f.f, u.email) ORDER BY u.email, f.name`;
const JOIN_ROWS = [
  ['ann@x.org', 'team:red'], ['ann@x.org', 'vip'],
  ['bob@x.org', 'blocked'], ['bob@x.org', 'team:red'],
  ['cy@x.org', 'team:blue'],
  ['dee@x.org', 'team:blue'], ['dee@x.org', 'vip'],
  ['eve@x.org', 'blocked'], ['eve@x.org', 'team:green'],
];
const SEEN = 'CREATE VIRTUAL TABLE seen USING cuckoo(capacity=1000, error_rate=0.001)';
const SEEN_JOIN = 'SELECT u.email FROM users u JOIN seen s ON s.item = u.email ORDER BY 1';
const SEEN_COUNT = "SELECT json_extract(cuckoo_table_info('seen'), '$.count') AS n";
const ERR_NEW = 'cuckoo_new: capacity must be a positive integer (got 0)';
// better-sqlite3 binds a JS number as a REAL, sqlite3 an integral one as
// an INTEGER: the message shows the value as bound.
const ERR_NEG = 'cuckoo_new: capacity must be a positive integer (got -5)';
const ERR_NEG_REAL = 'cuckoo_new: capacity must be a positive integer (got -5.0)';
const ERR_ADD = 'cuckoo_add: argument 1 must be a cuckoo filter BLOB (got TEXT)';
const ERR_VT = 'cuckoo table bad: unknown option "capcity" (valid options: ';

const rows = (objs) => objs.map((o) => Object.values(o));

async function packageChecks() {
  await test('package.json version is CUCKOO_VERSION', () => {
    assert.strictEqual(require('sqlite-cuckoo/package.json').version, VERSION);
  });
  await test('getLoadablePath() is the library the install built', () => {
    const p = cuckoo.getLoadablePath();
    assert.ok(path.isAbsolute(p), p);
    assert.strictEqual(fs.realpathSync(path.dirname(p)), fs.realpathSync(libDir));
    assert.strictEqual(path.basename(p), 'cuckoo.so');
    assert.ok(fs.statSync(p).isFile() && fs.statSync(p).size > 0);
  });
  await test('an unbuilt package: getLoadablePath() and load() say so', async () => {
    // The package's index.js alone, as after an install whose build failed.
    const dir = path.join(tmp, 'unbuilt');
    fs.mkdirSync(dir);
    const src = require.resolve('sqlite-cuckoo');
    fs.copyFileSync(src, path.join(dir, 'index.js'));
    const bare = require(path.join(dir, 'index.js'));
    const want = /sqlite-cuckoo: the extension was not built \(.*unbuilt\/build\/cuckoo\.so is missing\)\. Run `npm rebuild sqlite-cuckoo`/;
    assert.throws(() => bare.getLoadablePath(), want);
    const db = new Better(':memory:');
    assert.throws(() => bare.load(db), want);
    await new Promise((resolve, reject) => bare.load(db, (err, d) => {
      try { assert.match(err.message, want); assert.strictEqual(d, db); resolve(); } catch (e) { reject(e); }
    }));
    db.close();
    const adb = new sqlite3.Database(':memory:');
    await assert.rejects(bare.load(adb), want);
    await new Promise((r) => adb.close(r));
  });
  await test('load() wants a database', () => {
    assert.throws(() => cuckoo.load({}), /load\(db\) needs a database object with a loadExtension method/);
    assert.throws(() => cuckoo.load(new Better(':memory:'), 'x'), /must be a function/);
  });
}

// better-sqlite3: synchronous; load(db) returns db.
async function betterSqlite3() {
  const file = path.join(tmp, 'better.db');
  let db;
  await test('better-sqlite3: load(db) returns db', () => {
    db = new Better(file);
    assert.strictEqual(cuckoo.load(db), db);
    assert.strictEqual(db.prepare('SELECT cuckoo_version()').pluck().get(), VERSION);
  });
  await test('better-sqlite3: load(db, callback)', async () => {
    const other = new Better(':memory:');
    const got = await new Promise((resolve) => cuckoo.load(other, (err, d) => resolve([err, d])));
    assert.deepStrictEqual(got, [null, other]);
    assert.strictEqual(other.prepare("SELECT cuckoo_contains(cuckoo_add(cuckoo_new(10), 'a'), 'a')").pluck().get(), 1);
    other.close();
  });
  await test('better-sqlite3: filters probed in a join', () => {
    db.exec(SETUP);
    assert.deepStrictEqual(rows(db.prepare(JOIN).all()), JOIN_ROWS);
  });
  await test('better-sqlite3: a filter BLOB as a Buffer, and back as a parameter', () => {
    const f = db.prepare("SELECT f FROM filters WHERE name = 'vip'").pluck().get();
    assert.ok(Buffer.isBuffer(f));
    const probe = db.prepare('SELECT cuckoo_contains(?, ?)').pluck();
    assert.deepStrictEqual(['ann@x.org', 'bob@x.org', 'dee@x.org'].map((e) => probe.get(f, e)), [1, 0, 1]);
    const g = db.prepare('SELECT cuckoo_add(?, ?)').pluck().get(f, 'bob@x.org');
    assert.strictEqual(probe.get(g, 'bob@x.org'), 1);
    assert.strictEqual(probe.get(f, 'bob@x.org'), 0);
  });
  await test('better-sqlite3: the cuckoo table in transactions', () => {
    db.exec(SEEN);
    const add = db.prepare('INSERT INTO seen(item) VALUES (?)');
    const addAll = db.transaction((items) => {
      for (const it of items) add.run(it);
    });
    // A transaction function that throws is rolled back.
    assert.throws(() => db.transaction(() => {
      addAll(['ann@x.org', 'bob@x.org']);
      throw new Error('changed my mind');
    })(), /changed my mind/);
    assert.deepStrictEqual(db.prepare(SEEN_JOIN).pluck().all(), []);
    db.exec("BEGIN; INSERT INTO seen(item) VALUES ('eve@x.org'); ROLLBACK");
    assert.deepStrictEqual(db.prepare(SEEN_JOIN).pluck().all(), []);
    assert.strictEqual(db.prepare(SEEN_COUNT).pluck().get(), 0);
    addAll(['cy@x.org', 'dee@x.org']);
    db.exec("BEGIN; INSERT INTO seen(item) SELECT email FROM users WHERE team = 'green'; COMMIT");
    assert.deepStrictEqual(db.prepare(SEEN_JOIN).pluck().all(), ['cy@x.org', 'dee@x.org', 'eve@x.org']);
    assert.strictEqual(db.prepare(SEEN_COUNT).pluck().get(), 3);
  });
  await test('better-sqlite3: a second connection sees the committed table', () => {
    const two = cuckoo.load(new Better(file, { readonly: true }));
    assert.deepStrictEqual(two.prepare(SEEN_JOIN).pluck().all(), ['cy@x.org', 'dee@x.org', 'eve@x.org']);
    two.close();
  });
  await test('better-sqlite3: errors carry the function\'s message', () => {
    const err = (fn) => { try { fn(); } catch (e) { return e; } throw new Error('no error'); };
    let e = err(() => db.prepare('SELECT cuckoo_new(0)').get());
    assert.ok(e instanceof Better.SqliteError);
    assert.strictEqual(e.message, ERR_NEW);
    assert.strictEqual(e.code, 'SQLITE_ERROR');
    e = err(() => db.prepare('SELECT cuckoo_new(?)').get(-5));
    assert.strictEqual(e.message, ERR_NEG_REAL);
    e = err(() => db.prepare('SELECT cuckoo_new(?)').get(-5n));
    assert.strictEqual(e.message, ERR_NEG);
    // An integral REAL is a fine capacity.
    const made = db.prepare("SELECT cuckoo_contains(cuckoo_add(cuckoo_new(?, ?), 'k'), 'k')").pluck();
    assert.strictEqual(made.get(1000, 0.01), 1);
    // In a transaction: the failing statement changes nothing, the
    // transaction goes on.
    db.exec('BEGIN');
    e = err(() => db.prepare("INSERT INTO filters VALUES ('bad', cuckoo_add('x', 'y'))").run());
    assert.strictEqual(e.message, ERR_ADD);
    assert.ok(db.inTransaction);
    db.exec('COMMIT');
    assert.strictEqual(db.prepare("SELECT count(*) FROM filters WHERE name = 'bad'").pluck().get(), 0);
    e = err(() => db.exec('CREATE VIRTUAL TABLE bad USING cuckoo(capcity=10)'));
    assert.ok(e.message.startsWith(ERR_VT), e.message);
  });
  if (db) db.close();
}

// sqlite3: callbacks; load(db) returns a Promise.
function call(db, method, sql, params = []) {
  return new Promise((resolve, reject) => {
    db[method](sql, params, function done(err, res) {
      if (err) reject(err);
      else resolve(method === 'run' ? this : res);
    });
  });
}
const execAsync = (db, sql) => new Promise((resolve, reject) => db.exec(sql, (err) => (err ? reject(err) : resolve())));
const openAsync = (file, mode) => new Promise((resolve, reject) => {
  const db = new sqlite3.Database(file, mode, (err) => (err ? reject(err) : resolve(db)));
});
const closeAsync = (db) => new Promise((resolve, reject) => db.close((err) => (err ? reject(err) : resolve())));

async function nodeSqlite3() {
  const file = path.join(tmp, 'sqlite3.db');
  let db;
  await test('sqlite3: load(db) resolves to db', async () => {
    db = await openAsync(file, sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE);
    const p = cuckoo.load(db);
    assert.ok(p instanceof Promise);
    assert.strictEqual(await p, db);
    assert.deepStrictEqual(await call(db, 'get', 'SELECT cuckoo_version() AS v'), { v: VERSION });
  });
  await test('sqlite3: load(db, callback)', async () => {
    const other = new sqlite3.Database(':memory:');
    const got = await new Promise((resolve) => cuckoo.load(other, (err, d) => resolve([err, d])));
    assert.deepStrictEqual(got, [null, other]);
    assert.deepStrictEqual(await call(other, 'get', "SELECT cuckoo_contains(cuckoo_add(cuckoo_new(10), 'a'), 'a') AS hit"), { hit: 1 });
    await closeAsync(other);
  });
  await test('sqlite3: a query queued right after load(db), not awaited, sees the extension', async () => {
    // sqlite3 runs loadExtension exclusively: statements wait for it.
    const other = new sqlite3.Database(':memory:');
    const loading = cuckoo.load(other);
    const row = await call(other, 'get', "SELECT cuckoo_contains(cuckoo_new(10), 'a') AS hit");
    assert.deepStrictEqual(row, { hit: 0 });
    assert.strictEqual(await loading, other);
    await closeAsync(other);
  });
  await test('sqlite3: filters probed in a join', async () => {
    await execAsync(db, SETUP);
    assert.deepStrictEqual(rows(await call(db, 'all', JOIN)), JOIN_ROWS);
  });
  await test('sqlite3: a filter BLOB as a Buffer, and back as a parameter', async () => {
    const { f } = await call(db, 'get', "SELECT f FROM filters WHERE name = 'vip'");
    assert.ok(Buffer.isBuffer(f));
    const hits = [];
    for (const e of ['ann@x.org', 'bob@x.org', 'dee@x.org']) {
      hits.push((await call(db, 'get', 'SELECT cuckoo_contains(?, ?) AS hit', [f, e])).hit);
    }
    assert.deepStrictEqual(hits, [1, 0, 1]);
  });
  await test('sqlite3: the cuckoo table in transactions', async () => {
    await execAsync(db, SEEN);
    await execAsync(db, "BEGIN; INSERT INTO seen(item) VALUES ('ann@x.org'), ('bob@x.org');");
    assert.deepStrictEqual(rows(await call(db, 'all', SEEN_JOIN)), [['ann@x.org'], ['bob@x.org']]);
    await execAsync(db, 'ROLLBACK');
    assert.deepStrictEqual(await call(db, 'all', SEEN_JOIN), []);
    assert.deepStrictEqual(await call(db, 'get', SEEN_COUNT), { n: 0 });
    await call(db, 'run', 'BEGIN');
    for (const e of ['cy@x.org', 'dee@x.org']) await call(db, 'run', 'INSERT INTO seen(item) VALUES (?)', [e]);
    await call(db, 'run', "INSERT INTO seen(item) SELECT email FROM users WHERE team = 'green'");
    await call(db, 'run', 'COMMIT');
    assert.deepStrictEqual(rows(await call(db, 'all', SEEN_JOIN)), [['cy@x.org'], ['dee@x.org'], ['eve@x.org']]);
    assert.deepStrictEqual(await call(db, 'get', SEEN_COUNT), { n: 3 });
  });
  await test('sqlite3: a second connection sees the committed table', async () => {
    const two = await cuckoo.load(await openAsync(file, sqlite3.OPEN_READONLY));
    assert.deepStrictEqual(rows(await call(two, 'all', SEEN_JOIN)), [['cy@x.org'], ['dee@x.org'], ['eve@x.org']]);
    await closeAsync(two);
  });
  await test('sqlite3: errors carry the function\'s message', async () => {
    await assert.rejects(call(db, 'get', 'SELECT cuckoo_new(0)'),
      (e) => e.message === 'SQLITE_ERROR: ' + ERR_NEW && e.code === 'SQLITE_ERROR' && e.errno === 1);
    await assert.rejects(call(db, 'get', 'SELECT cuckoo_new(?)', [-5]), { message: 'SQLITE_ERROR: ' + ERR_NEG });
    await call(db, 'run', 'BEGIN');
    await assert.rejects(call(db, 'run', "INSERT INTO filters VALUES ('bad', cuckoo_add('x', 'y'))"), { message: 'SQLITE_ERROR: ' + ERR_ADD });
    await call(db, 'run', 'COMMIT');
    assert.deepStrictEqual(await call(db, 'get', "SELECT count(*) AS n FROM filters WHERE name = 'bad'"), { n: 0 });
    await assert.rejects(execAsync(db, 'CREATE VIRTUAL TABLE bad USING cuckoo(capcity=10)'),
      (e) => e.message.startsWith('SQLITE_ERROR: ' + ERR_VT));
  });
  if (db) await closeAsync(db);
}

(async () => {
  await packageChecks();
  await betterSqlite3();
  await nodeSqlite3();
  fs.rmSync(tmp, { recursive: true, force: true });
  process.exitCode = failures ? 1 : 0;
})().catch((err) => {
  console.log(`FAILED: ${label}: ${err.stack}`);
  process.exitCode = 1;
});
