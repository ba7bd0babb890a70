// cases.mjs: the WebAssembly builds against the native extension, value
// for value and byte for byte; run in Node (node_test.mjs) and in
// Chromium (page.html).  Part of cuckoo (MIT License, see LICENSE).
//
//   await run(t, { Database, SQLiteError, CuckooFilter, native })
//
// native is tests/wasm/native.py's JSON (what ./cuckoo.so says); t.ok(name)
// and t.bad(name, detail) count.  Returns the bytes of a database the
// WebAssembly SQLite wrote (export()), for native.py --check.

const hex = (u8) => Array.from(u8, (b) => b.toString(16).padStart(2, '0')).join('');
const unhex = (h) => new Uint8Array(h.match(/../g)?.map((x) => parseInt(x, 16)) ?? []);

// A native value (tagged; see native.py) as the item or parameter it is.
export function untag(v) {
  if (v === null) return null;
  if ('i' in v) {
    const b = BigInt(v.i);
    return b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(b) : b;
  }
  if ('r' in v) {
    return { inf: Infinity, '-inf': -Infinity, '-0': -0 }[v.r] ?? v.r;
  }
  if ('t' in v) return v.t;
  return unhex(v.b);
}

// Is JavaScript value got the native value want (tagged)?
function same(want, got) {
  if (want === null) return got === null;
  if ('i' in want) {
    return (typeof got === 'bigint' && got === BigInt(want.i)) ||
      (Number.isSafeInteger(got) && BigInt(got) === BigInt(want.i));
  }
  if ('r' in want) return Object.is(got, untag(want));
  if ('t' in want) return got === want.t;
  return got instanceof Uint8Array && hex(got) === want.b;
}

function sameRows(want, got) {
  return want.length === got.length && want.every((row, i) =>
    row.length === got[i].length && row.every((v, j) => same(v, got[i][j])));
}

const show = (x) => {
  const s = JSON.stringify(x, (k, v) => (typeof v === 'bigint' ? `${v}n`
    : v instanceof Uint8Array ? `x'${hex(v)}'` : v)) ?? String(x);
  return s.length > 160 ? s.slice(0, 160) + '...' : s;
};

function lastRows(db, sql) {
  const res = db.exec(sql);
  return res.length ? res[res.length - 1].values : [];
}

export async function run(t, { Database, SQLiteError, CuckooFilter, native }) {
  const check = (name, cond, detail) => (cond ? t.ok(name) : t.bad(name, detail));

  // 1. SQL on the WebAssembly SQLite: rows, or SQLite's error message.
  for (const c of native.sql) {
    const db = new Database();
    try {
      const got = lastRows(db, c.sql);
      if ('error' in c) t.bad(`sql ${c.name}`, `no error; native: ${c.error}`);
      else check(`sql ${c.name}`, sameRows(c.rows, got), `${show(got)}; native ${show(c.rows)}`);
    } catch (e) {
      if ('error' in c) {
        check(`sql ${c.name}: SQLite's message`, e instanceof SQLiteError && e.message === c.error,
          `${e.message}; native: ${c.error}`);
      } else {
        t.bad(`sql ${c.name}`, String(e));
      }
    } finally {
      db.close();
    }
  }

  const items = native.items.map(untag);
  const probes = native.probes.map(untag);
  const sqldb = new Database();

  // 2. Filters made by SQL (item by item) probed here, made here compared
  // byte for byte, made here probed by the WebAssembly SQLite.
  for (const f of native.filters) {
    const name = `filter ${f.name}`;
    const fromSql = CuckooFilter.from(unhex(f.blob));
    let bad = probes.findIndex((p, i) => (fromSql.contains(p) ? 1 : 0) !== f.contains[i]);
    check(`${name}: made by SQL, ${probes.length} probes answered as cuckoo_contains`, bad < 0,
      `probe ${bad} ${show(probes[bad])}`);
    bad = f.counts.findIndex((n, i) => fromSql.count(probes[i]) !== n);
    check(`${name}: count(item) is cuckoo_count's`, bad < 0, `probe ${bad}`);
    check(`${name}: count() ${fromSql.count()}`, fromSql.count() === f.added, `native ${f.added}`);
    check(`${name}: toBytes() of from(bytes) is the same bytes`, hex(fromSql.toBytes()) === f.blob, '');

    const o = f.js_options && { ...f.js_options };
    if (o && o.seed && o.seed.big) o.seed = BigInt(o.seed.big);
    const js = new CuckooFilter(f.capacity, f.error_rate, o);
    for (let i = 0; i < f.added; i++) js.add(items[i]);
    if (f.full_at !== null) {
      const before = hex(js.toBytes());
      let msg = '';
      try {
        js.add(items[f.full_at]);
      } catch (e) {
        msg = e.message;
      }
      check(`${name}: a full filter refuses item ${f.full_at} and changes nothing`,
        /^CuckooFilter\.add: (filter is full|too many copies)/.test(msg) &&
        hex(js.toBytes()) === before, msg);
    }
    const jsBytes = js.toBytes();
    check(`${name}: made here, byte for byte cuckoo_new + cuckoo_add's (${jsBytes.length} bytes)`,
      hex(jsBytes) === f.blob, `first difference at byte ${
        [...jsBytes].findIndex((b, i) => b !== unhex(f.blob)[i])}`);
    const info = js.info();
    const infoBad = Object.keys(f.info).filter((k) => {
      const w = f.info[k];
      const g = info[k];
      if (k === 'seed') return String(g) !== w;
      if (k === 'error_rate_note') return false; // text: not in info()
      // cuckoo_info prints 6 significant digits (%!.6g).
      const near = (x, y) => Math.abs(x - y) <= 5e-6 * Math.abs(y);
      if (Array.isArray(w)) return w.some((x, i) => !near(g[i], x));
      if (typeof w === 'number') return !near(g, w);
      return g !== w;
    });
    check(`${name}: info() is cuckoo_info's`, infoBad.length === 0,
      `${infoBad.map((k) => `${k}: ${show(info[k])} native ${show(f.info[k])}`).join(', ')}`);
    const st = sqldb.prepare('SELECT cuckoo_contains(?, ?)');
    bad = probes.findIndex((p, i) => {
      st.bind([jsBytes, p]);
      st.step();
      return st.get()[0] !== f.contains[i];
    });
    st.free();
    check(`${name}: made here, probed by SQL`, bad < 0, `probe ${bad}`);
    let removedOk = true;
    for (const n of f.removed) removedOk = js.remove(items[n]) && removedOk;
    check(`${name}: ${f.removed.length} removes, byte for byte cuckoo_remove's`,
      removedOk && hex(js.toBytes()) === f.after, '');
    js.free();
    fromSql.free();
  }

  // 3. Filters made by cuckoo_agg, probed here.
  for (const a of native.aggs) {
    const f = CuckooFilter.from(unhex(a.blob));
    const bad = probes.findIndex((p, i) => (f.contains(p) ? 1 : 0) !== a.contains[i]);
    check(`${a.name}: ${a.sql}: probed here as by SQL`, bad < 0, `probe ${bad}`);
    f.free();
  }

  // 4. Malformed BLOBs: the native verdict, a clear error, never a crash.
  let nOpen = 0;
  for (const [i, m] of native.malformed.entries()) {
    const bytes = unhex(m.hex);
    let why = null;
    try {
      const f = CuckooFilter.from(bytes);
      nOpen++;
      // A header that passes validation with crafted contents gives
      // wrong answers at worst (docs/format.md): no trap, only the
      // documented errors.
      for (const p of probes.slice(0, 50)) f.contains(p);
      try {
        f.add('x');
        f.remove('x');
      } catch (e) {
        if (!/^CuckooFilter\.(add|remove): /.test(e.message)) throw e;
      }
      f.free();
    } catch (e) {
      why = e instanceof RangeError && e.message.startsWith('CuckooFilter.from: not a valid cuckoo filter: ')
        ? e.message.slice('CuckooFilter.from: not a valid cuckoo filter: '.length) : `${e.name}: ${e.message}`;
    }
    if (why !== m.why) {
      t.bad(`malformed BLOB ${i}`, `here: ${why}; native: ${m.why}`);
    } else if (i === native.malformed.length - 1) {
      t.ok(`${native.malformed.length} malformed BLOBs: each accepted or refused as natively, ` +
        `with the same reason (${nOpen} accepted)`);
    }
    if (m.why !== null) {
      try {
        lastRows(sqldb, 'SELECT cuckoo_count(?)'.replace('?', `x'${m.hex}'`));
        t.bad(`malformed BLOB ${i} in SQL`, 'accepted');
      } catch (e) {
        if (e.message !== `cuckoo_count: argument 1 is not a valid cuckoo filter: ${m.why}`) {
          t.bad(`malformed BLOB ${i} in SQL`, e.message);
        }
      }
    }
  }

  // 5. Items of every kind, and what is not an item.
  const kinds = new CuckooFilter(100);
  kinds.add(42).add('42').add(new Uint8Array([52, 50])).add(0.5).add(2n ** 63n - 1n);
  check('item kinds: 42, 42.0 and 42n are one item; "42" and bytes "42" are others',
    kinds.contains(42.0) && kinds.contains(42n) && kinds.count(42) === 1 &&
    kinds.count('42') === 1 && kinds.count(new Uint8Array([52, 50])) === 1 &&
    kinds.contains(0.5) && kinds.contains(9223372036854775807n) && kinds.count() === 5, '');
  for (const [what, v, cls] of [['null', null, TypeError], ['undefined', undefined, TypeError],
    ['NaN', NaN, TypeError], ['a boolean', true, TypeError], ['an object', {}, TypeError],
    ['2n ** 64n', 2n ** 64n, RangeError]]) {
    let err = null;
    try {
      kinds.contains(v);
    } catch (e) {
      err = e;
    }
    check(`item kinds: ${what} is refused with a ${cls.name}`, err instanceof cls, String(err));
  }
  for (const [args, want] of [
    [[0], 'CuckooFilter: capacity must be a positive integer (got 0)'],
    [[10, 1.5], 'CuckooFilter: errorRate must be > 0 and < 1 (got 1.5)'],
    [[10, 0.01, { bucketSize: 3 }], 'CuckooFilter: bucketSize must be 2, 4 or 8 (got 3)'],
    [[10, 0.01, { bucketSize: 8, variant: 'semisort' }], 'CuckooFilter: semisort needs bucketSize=4 (got bucketSize=8)'],
    [[10, 1e-10], 'CuckooFilter: errorRate 1e-10 needs more than 32-bit fingerprints (smallest allowed with bucketSize=4 is 1.862645149230957e-9)'],
    [[10, 0.01, { size: 3 }], 'CuckooFilter: unknown option "size" (valid options: bucketSize: 2|4|8, seed: <integer>, variant: "plain"|"semisort")'],
  ]) {
    let msg = '';
    try {
      new CuckooFilter(...args);
    } catch (e) {
      msg = e.message;
    }
    check(`new CuckooFilter(${show(args).slice(1, -1)}): ${want}`, msg === want, msg);
  }
  kinds.free();

  // 6. The database API: values both ways, statements, errors.
  const db = new Database();
  const vals = [null, 0, -1, 2 ** 53 - 1, 2n ** 63n - 1n, -(2n ** 63n), 0.5, -0, 'h\u00e9llo \u65e5\u672c',
    '', new Uint8Array([0, 1, 255]), new Uint8Array(0)];
  const back = db.exec(`SELECT ${vals.map(() => '?').join(', ')}`, vals)[0].values[0];
  const want = [null, 0, -1, 2 ** 53 - 1, 2n ** 63n - 1n, -(2n ** 63n), 0.5, 0, 'h\u00e9llo \u65e5\u672c',
    '', new Uint8Array([0, 1, 255]), new Uint8Array(0)];
  check('values round-trip (null, integers to 64 bits, reals, UTF-8 text, BLOBs)',
    show(back) === show(want) && back[10] instanceof Uint8Array, show(back));
  const types = db.exec('SELECT typeof(?), typeof(?), typeof(?), typeof(?), typeof(?), typeof(?)',
    [1, 1.5, 3n, 'x', new Uint8Array(1), true])[0].values[0];
  check(`bound types: ${types.join(' ')}`, types.join(' ') === 'integer real integer text blob integer', '');
  db.exec('CREATE TABLE kv(k TEXT PRIMARY KEY, v)');
  const ins = db.prepare('INSERT INTO kv VALUES (:k, $v)');
  ins.bind({ k: 'a', v: 1 });
  ins.step();
  ins.bind({ ':k': 'b', $v: new Uint8Array([9]) });
  ins.step();
  ins.free();
  const sel = db.prepare('SELECT k, v FROM kv WHERE k >= ? ORDER BY k', ['a']);
  const got = [];
  while (sel.step()) got.push(sel.getAsObject());
  sel.reset();
  const again = sel.step() && sel.get()[0];
  sel.free();
  check('prepare, bind (named), step, get, getAsObject, reset',
    show(got) === show([{ k: 'a', v: 1 }, { k: 'b', v: new Uint8Array([9]) }]) && again === 'a',
    show(got));
  let err = null;
  try {
    db.exec("INSERT INTO kv VALUES ('a', 2)");
  } catch (e) {
    err = e;
  }
  check("a constraint error: SQLite's message and extended code",
    err instanceof SQLiteError && err.message === 'UNIQUE constraint failed: kv.k' && err.code === 1555,
    `${err && err.message} ${err && err.code}`);
  db.close();

  // 7. The virtual table: grows, exported, reopened; the native database
  // opened here; every query row the native one.
  const v = native.vtab;
  const queries = (d, where) => {
    for (const [name, sql] of v.queries) {
      let rows;
      try {
        rows = lastRows(d, sql);
      } catch (e) {
        rows = String(e);
      }
      check(`cuckoo table (${where}): ${name}`, Array.isArray(rows) && sameRows(v.rows[name], rows),
        `${show(rows)}; native ${show(v.rows[name])}`);
    }
  };
  const vdb = new Database();
  vdb.exec(v.script);
  queries(vdb, 'made here, grown to 5 levels');
  const bytes = vdb.export();
  vdb.close();
  const reopened = new Database(bytes);
  queries(reopened, 'exported and reopened');
  const fromNative = new Database(Uint8Array.from(atob(v.db), (c) => c.charCodeAt(0)));
  queries(fromNative, 'the native database file');
  fromNative.exec("INSERT INTO seen(item) VALUES ('new-one')");
  check('cuckoo table (the native database file): an insert here is found',
    lastRows(fromNative, "SELECT count(*) FROM seen WHERE item = 'new-one'")[0][0] === 1, '');
  fromNative.close();
  let notDb = '';
  try {
    new Database(new TextEncoder().encode('this is not a database file, not at all....')).exec('SELECT * FROM sqlite_master');
  } catch (e) {
    notDb = e.message;
  }
  check(`bytes that are not a database: "${notDb}"`, notDb === 'file is not a database', notDb);
  sqldb.close();
  return { exported: bytes };
}
