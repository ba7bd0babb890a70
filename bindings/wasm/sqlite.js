// sqlite.js: SQLite with the cuckoo extension built in, as WebAssembly
// (sqlite-cuckoo-wasm; part of cuckoo, MIT License, see LICENSE).
//
//   import { Database } from 'sqlite-cuckoo-wasm';
//   const db = new Database();              // or new Database(bytes)
//   db.exec("CREATE VIRTUAL TABLE seen USING cuckoo(capacity=1000)");
//   db.exec('INSERT INTO seen(item) VALUES (?)', ['alice']);
//   db.exec("SELECT count(*) FROM seen WHERE item = 'alice'");
//     // [{ columns: ['count(*)'], values: [[1]] }]
//   const bytes = db.export();              // the database file's bytes
//   db.close();
//
// The API is modeled on sql.js's; docs/clients.md, "In the browser",
// documents it and sqlite.d.ts types it.  The module is SQLite's own C
// API compiled by emcc (mk/wasm.mk), called directly: databases live in
// memory, nothing is read from or written to files.
//
// Values: NULL <-> null; INTEGER -> Number (BigInt beyond 2^53 - 1);
// REAL <-> Number; TEXT <-> string; BLOB <-> Uint8Array.  A Number that is
// a safe integer binds as INTEGER, any other Number as REAL, a BigInt as
// INTEGER (it must fit in 64 bits), a boolean as 0 or 1, undefined as
// NULL.

import { Heap, instantiate, utf8, utf8enc } from './load.js';

const SQLITE_OK = 0;
const SQLITE_ROW = 100;
const SQLITE_DONE = 101;
const SQLITE_INTEGER = 1;
const SQLITE_FLOAT = 2;
const SQLITE_TEXT = 3;
const SQLITE_BLOB = 4;
const SQLITE_OPEN_READWRITE = 0x2;
const SQLITE_OPEN_CREATE = 0x4;
const SQLITE_OPEN_EXRESCODE = 0x02000000;
const SQLITE_TRANSIENT = -1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const heap = new Heap();

// Random bytes for SQLite's randomness (random(), randomblob(), names).
function ckwRandom(p, n) {
  for (let off = 0; off < n; off += 65536) {
    const len = Math.min(65536, n - off);
    crypto.getRandomValues(heap.u8.subarray(p + off, p + off + len));
  }
}

const C = await instantiate('cuckoo-sqlite.wasm', {
  ckw_random: ckwRandom,
  ckw_now: () => Date.now(),
}, heap);

// Scratch memory for out-parameters (pointers at 0 and 4, sizes at 0) and
// 64-bit integers (at 8).
const scratch = C.sqlite3_malloc(16);

/** The version of the SQLite built in, e.g. "3.54.1". */
export const sqliteVersion = heap.cstring(C.sqlite3_libversion());

/**
 * An error reported by SQLite.  `message` is SQLite's own message
 * (sqlite3_errmsg), `code` its extended result code.
 */
export class SQLiteError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'SQLiteError';
    this.code = code;
  }
}

// A copy of s as UTF-8 in SQLite's heap, NUL-terminated: [pointer, bytes].
function allocString(s) {
  const bytes = utf8enc.encode(s);
  const p = C.sqlite3_malloc(bytes.length + 1);
  if (p === 0) throw new SQLiteError('out of memory', 7);
  const u8 = heap.u8;
  u8.set(bytes, p);
  u8[p + bytes.length] = 0;
  return [p, bytes.length];
}

function readPtr(p) {
  return heap.dv.getUint32(p, true);
}

/** A prepared statement: made by Database.prepare(). */
export class Statement {
  constructor(db, ptr) {
    this.db = db;
    this.ptr = ptr;
    this._names = null;
  }

  _live() {
    if (this.ptr === 0) throw new Error('sqlite-cuckoo-wasm: statement was freed');
    return this.ptr;
  }

  /**
   * Binds values to the parameters: an array for ?, ?NNN (in order), or an
   * object whose keys are names (":name", "@name", "$name"; a key without
   * its prefix finds a parameter of any of the three).  Resets the
   * statement and clears earlier bindings first.  Returns true.
   */
  bind(params) {
    const st = this._live();
    C.sqlite3_reset(st);
    C.sqlite3_clear_bindings(st);
    if (params == null) return true;
    const n = C.sqlite3_bind_parameter_count(st);
    if (Array.isArray(params)) {
      if (params.length > n) {
        throw new RangeError(`sqlite-cuckoo-wasm: ${params.length} values for ` +
          `${n} parameter${n === 1 ? '' : 's'}`);
      }
      params.forEach((v, i) => this._bindOne(i + 1, v));
    } else if (typeof params === 'object') {
      for (const [key, v] of Object.entries(params)) {
        const i = this._paramIndex(key);
        if (i === 0) {
          throw new RangeError(`sqlite-cuckoo-wasm: no parameter named ${key}`);
        }
        this._bindOne(i, v);
      }
    } else {
      throw new TypeError('sqlite-cuckoo-wasm: parameters must be an array or an object');
    }
    return true;
  }

  _paramIndex(key) {
    const names = /^[:@$?]/.test(key) ? [key] : [':' + key, '@' + key, '$' + key];
    for (const name of names) {
      const [p] = allocString(name);
      const i = C.sqlite3_bind_parameter_index(this.ptr, p);
      C.sqlite3_free(p);
      if (i !== 0) return i;
    }
    return 0;
  }

  _bindOne(i, v) {
    const st = this.ptr;
    let rc;
    if (v === null || v === undefined) {
      rc = C.sqlite3_bind_null(st, i);
    } else if (typeof v === 'number') {
      if (Number.isSafeInteger(v)) {
        heap.dv.setBigInt64(scratch + 8, BigInt(v), true);
        rc = C.ckw_bind_int64(st, i, scratch + 8);
      } else {
        rc = C.sqlite3_bind_double(st, i, v);
      }
    } else if (typeof v === 'bigint') {
      if (v < INT64_MIN || v > INT64_MAX) {
        throw new RangeError(`sqlite-cuckoo-wasm: ${v} does not fit in a 64-bit INTEGER`);
      }
      heap.dv.setBigInt64(scratch + 8, v, true);
      rc = C.ckw_bind_int64(st, i, scratch + 8);
    } else if (typeof v === 'boolean') {
      heap.dv.setBigInt64(scratch + 8, v ? 1n : 0n, true);
      rc = C.ckw_bind_int64(st, i, scratch + 8);
    } else if (typeof v === 'string') {
      const [p, n] = allocString(v);
      rc = C.sqlite3_bind_text(st, i, p, n, SQLITE_TRANSIENT);
      C.sqlite3_free(p);
    } else if (v instanceof Uint8Array) {
      if (v.length === 0) {
        rc = C.sqlite3_bind_zeroblob(st, i, 0);
      } else {
        const p = C.sqlite3_malloc(v.length);
        if (p === 0) throw new SQLiteError('out of memory', 7);
        heap.u8.set(v, p);
        rc = C.sqlite3_bind_blob(st, i, p, v.length, SQLITE_TRANSIENT);
        C.sqlite3_free(p);
      }
    } else {
      throw new TypeError('sqlite-cuckoo-wasm: cannot bind a value of type ' +
        (v === null ? 'null' : typeof v) + ' (use null, a number, a bigint, ' +
        'a boolean, a string or a Uint8Array)');
    }
    if (rc !== SQLITE_OK) this.db._fail();
  }

  /** Runs to the next row: true if there is one, false when done. */
  step() {
    const rc = C.sqlite3_step(this._live());
    if (rc === SQLITE_ROW) return true;
    if (rc === SQLITE_DONE) return false;
    this.db._fail();
  }

  /** The current row as an array (binds params first, if given). */
  get(params) {
    if (params != null) {
      this.bind(params);
      this.step();
    }
    const st = this._live();
    const n = C.sqlite3_column_count(st);
    const row = new Array(n);
    for (let i = 0; i < n; i++) row[i] = this._column(st, i);
    return row;
  }

  /** The current row as an object keyed by column name. */
  getAsObject(params) {
    const row = this.get(params);
    const names = this.getColumnNames();
    const o = {};
    for (let i = 0; i < names.length; i++) o[names[i]] = row[i];
    return o;
  }

  _column(st, i) {
    switch (C.sqlite3_column_type(st, i)) {
      case SQLITE_INTEGER: {
        const d = C.ckw_column_int64(st, i, scratch + 8);
        return Number.isSafeInteger(d) ? d : heap.dv.getBigInt64(scratch + 8, true);
      }
      case SQLITE_FLOAT:
        return C.sqlite3_column_double(st, i);
      case SQLITE_TEXT: {
        const p = C.sqlite3_column_text(st, i);
        const n = C.sqlite3_column_bytes(st, i);
        return utf8.decode(heap.u8.subarray(p, p + n));
      }
      case SQLITE_BLOB: {
        const p = C.sqlite3_column_blob(st, i);
        const n = C.sqlite3_column_bytes(st, i);
        return heap.u8.slice(p, p + n);
      }
      default:
        return null;
    }
  }

  /** The names of the result columns. */
  getColumnNames() {
    const st = this._live();
    if (this._names === null) {
      const n = C.sqlite3_column_count(st);
      this._names = [];
      for (let i = 0; i < n; i++) this._names.push(heap.cstring(C.sqlite3_column_name(st, i)));
    }
    return this._names;
  }

  /** Resets the statement to run again (bindings are kept). */
  reset() {
    C.sqlite3_reset(this._live());
    return true;
  }

  /** Finalizes the statement (Database.close() frees those left). */
  free() {
    if (this.ptr !== 0) {
      C.sqlite3_finalize(this.ptr);
      this.db._stmts.delete(this);
      this.ptr = 0;
    }
    return true;
  }
}

/** A database in memory, with cuckoo registered on it. */
export class Database {
  /**
   * A new empty database, or, given the bytes of a SQLite database file
   * (as export() returns them, or a file made anywhere else), that
   * database (the bytes are copied).
   */
  constructor(bytes) {
    this._stmts = new Set();
    const [name] = allocString(':memory:');
    const rc = C.sqlite3_open_v2(name, scratch,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXRESCODE, 0);
    C.sqlite3_free(name);
    this.ptr = readPtr(scratch);
    if (rc !== SQLITE_OK) {
      const err = this.ptr ? new SQLiteError(heap.cstring(C.sqlite3_errmsg(this.ptr)), rc)
        : new SQLiteError(heap.cstring(C.sqlite3_errstr(rc)), rc);
      if (this.ptr) C.sqlite3_close_v2(this.ptr);
      this.ptr = 0;
      throw err;
    }
    if (bytes != null) {
      if (!(bytes instanceof Uint8Array)) {
        this.close();
        throw new TypeError('sqlite-cuckoo-wasm: Database(bytes): bytes must be a Uint8Array');
      }
      const n = bytes.length;
      const p = C.sqlite3_malloc(Math.max(n, 1));
      if (p === 0) {
        this.close();
        throw new SQLiteError('out of memory', 7);
      }
      heap.u8.set(bytes, p);
      const drc = C.ckw_deserialize(this.ptr, p, n);
      if (drc !== SQLITE_OK) {
        const err = new SQLiteError(heap.cstring(C.sqlite3_errmsg(this.ptr)), drc);
        this.close();
        throw err;
      }
    }
  }

  _live() {
    if (this.ptr === 0) throw new Error('sqlite-cuckoo-wasm: database is closed');
    return this.ptr;
  }

  _fail() {
    const db = this.ptr;
    throw new SQLiteError(heap.cstring(C.sqlite3_errmsg(db)), C.sqlite3_extended_errcode(db));
  }

  // Calls fn(stmt) for each statement of sql, in order, freeing each.
  _each(sql, fn) {
    const db = this._live();
    const [p, n] = allocString(String(sql));
    const end = p + n;
    const tail = scratch + 4;
    try {
      let at = p;
      while (at < end) {
        const rc = C.sqlite3_prepare_v2(db, at, end - at, scratch, tail);
        if (rc !== SQLITE_OK) this._fail();
        const st = readPtr(scratch);
        at = readPtr(tail);
        if (st === 0) continue; /* white space or a comment */
        const stmt = new Statement(this, st);
        this._stmts.add(stmt);
        try {
          fn(stmt);
        } finally {
          stmt.free();
        }
      }
    } finally {
      C.sqlite3_free(p);
    }
  }

  /**
   * Runs every statement of sql (params, if given, are bound to each
   * statement that has parameters) and returns the rows of those that
   * gave rows: [{ columns: [names], values: [[row], ...] }, ...].
   */
  exec(sql, params) {
    const results = [];
    this._each(sql, (stmt) => {
      if (params != null && C.sqlite3_bind_parameter_count(stmt.ptr) > 0) stmt.bind(params);
      let cur = null;
      while (stmt.step()) {
        if (cur === null) {
          cur = { columns: stmt.getColumnNames(), values: [] };
          results.push(cur);
        }
        cur.values.push(stmt.get());
      }
    });
    return results;
  }

  /** Like exec() but returns the database (for chaining). */
  run(sql, params) {
    this.exec(sql, params);
    return this;
  }

  /**
   * A prepared statement for the first statement of sql (with params
   * bound, if given); free() it when done.
   */
  prepare(sql, params) {
    const db = this._live();
    const [p, n] = allocString(String(sql));
    let st;
    try {
      const rc = C.sqlite3_prepare_v2(db, p, n, scratch, 0);
      if (rc !== SQLITE_OK) this._fail();
      st = readPtr(scratch);
    } finally {
      C.sqlite3_free(p);
    }
    if (st === 0) throw new RangeError('sqlite-cuckoo-wasm: prepare(): no statement in the SQL text');
    const stmt = new Statement(this, st);
    this._stmts.add(stmt);
    if (params != null) stmt.bind(params);
    return stmt;
  }

  /** Rows changed by the last INSERT, UPDATE or DELETE. */
  changes() {
    return C.sqlite3_changes(this._live());
  }

  /** The database file's bytes (a copy): new Database(bytes) reopens it. */
  export() {
    const db = this._live();
    const [schema] = allocString('main');
    heap.dv.setBigInt64(scratch, 0n, true);
    const p = C.sqlite3_serialize(db, schema, scratch, 0);
    C.sqlite3_free(schema);
    const n = Number(heap.dv.getBigInt64(scratch, true));
    if (p === 0) {
      if (n <= 0) return new Uint8Array(0);
      throw new SQLiteError('out of memory', 7);
    }
    const out = heap.u8.slice(p, p + n);
    C.sqlite3_free(p);
    return out;
  }

  /** Frees every statement left and closes the database. */
  close() {
    if (this.ptr !== 0) {
      for (const stmt of [...this._stmts]) stmt.free();
      C.sqlite3_close_v2(this.ptr);
      this.ptr = 0;
    }
  }
}

export default Database;
