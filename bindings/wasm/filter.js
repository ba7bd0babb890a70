// filter.js: a cuckoo filter in a web page, without SQLite
// (sqlite-cuckoo-wasm/filter; part of cuckoo, MIT License, see LICENSE).
//
//   import { CuckooFilter } from 'sqlite-cuckoo-wasm/filter';
//   const f = CuckooFilter.from(bytes);  // a BLOB made by cuckoo_new/_agg/...
//   f.contains('alice');                 // true / false
//   const g = new CuckooFilter(1000, 0.001, { bucketSize: 4, seed: 0 });
//   g.add(42); g.toBytes();              // the BLOB, for cuckoo_contains()
//
// The filter is the extension's own core (ext/, docs/format.md) compiled
// to WebAssembly (mk/wasm.mk), so a filter made by SQL and probed here,
// or made here and probed by SQL, gives the same answers and the same
// bytes.  Item identity is docs/format.md's "Item identity":
//   a string          TEXT, as its UTF-8 bytes
//   a Number          INTEGER if it is an integer (42 and 42.0 are one
//                     item, as in SQL), else REAL
//   a BigInt          INTEGER (it must fit in 64 bits, signed)
//   a Uint8Array      BLOB
// Anything else (null, undefined, NaN, booleans, objects) is a TypeError:
// SQL has no such item (its functions ignore NULL).

import { Heap, instantiate, utf8enc } from './load.js';

const heap = new Heap();
const W = await instantiate('cuckoo-filter.wasm', {}, heap);

const CKF_INT = 1;
const CKF_REAL = 2;
const CKF_TEXT = 3;
const CKF_BLOB = 4;
const OP_CONTAINS = 1;
const OP_ADD = 2;
const OP_REMOVE = 3;
const OP_COUNT = 4;
const CF_FULL = 1;
const CF_TOO_MANY = 2;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const HEADER = 40;
const DEFAULT_ERROR_RATE = 0.001;

// Scratch memory in the module: out-parameters, and the bytes of the
// item being hashed (grown as needed).
const out = W.ckf_malloc(8);
const seedAt = W.ckf_malloc(8);
let itemBuf = W.ckf_malloc(256);
let itemCap = 256;

function itemSpace(n) {
  if (n > itemCap) {
    W.ckf_free_mem(itemBuf);
    itemCap = Math.max(n, itemCap * 2);
    itemBuf = W.ckf_malloc(itemCap);
    if (itemBuf === 0) {
      itemCap = 0;
      throw new RangeError('CuckooFilter: out of memory');
    }
  }
  return itemBuf;
}

function describe(v) {
  if (v === null) return 'null';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'object') return v.constructor ? v.constructor.name : 'object';
  return typeof v;
}

// Calls op on item: the item's kind chosen by its JavaScript type.
function itemOp(h, op, item, who) {
  switch (typeof item) {
    case 'string': {
      // encode() then set(), not encodeInto() the module's memory: in Node
      // 20.20, encodeInto() there, in optimized code that also calls the
      // module, crashed the process (SIGSEGV; make test-wasm found it).
      const bytes = utf8enc.encode(item);
      const p = itemSpace(bytes.length);
      heap.u8.set(bytes, p);
      return W.ckf_op(h, op, CKF_TEXT, p, bytes.length, 0);
    }
    case 'number':
      if (Number.isNaN(item)) break;
      return W.ckf_op(h, op, CKF_REAL, 0, 0, item);
    case 'bigint':
      if (item < INT64_MIN || item > INT64_MAX) {
        throw new RangeError(`CuckooFilter.${who}: ${item} does not fit in a ` +
          '64-bit INTEGER (SQL has no such item)');
      }
      heap.dv.setBigInt64(out, item, true);
      return W.ckf_op(h, op, CKF_INT, out, 8, 0);
    default:
      if (item instanceof Uint8Array) {
        const p = itemSpace(item.length);
        heap.u8.set(item, p);
        return W.ckf_op(h, op, CKF_BLOB, p, item.length, 0);
      }
  }
  throw new TypeError(`CuckooFilter.${who}: an item is a string, a number, a ` +
    `bigint or a Uint8Array (got ${describe(item)})`);
}

const registry = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((h) => W.ckf_close(h)) : null;

function seedOf(seed) {
  if (seed === undefined || seed === null) return 0n;
  let s;
  if (typeof seed === 'bigint') s = seed;
  else if (Number.isSafeInteger(seed)) s = BigInt(seed);
  else throw new TypeError(`CuckooFilter: seed must be an integer or a bigint (got ${describe(seed)})`);
  if (s < INT64_MIN || s >= 2n ** 64n) {
    throw new RangeError(`CuckooFilter: seed must fit in 64 bits (got ${s})`);
  }
  return BigInt.asIntN(64, s);
}

/** A cuckoo filter: the extension's BLOB format, in WebAssembly memory. */
export class CuckooFilter {
  /**
   * An empty filter, exactly as cuckoo_new(capacity, errorRate, options)
   * makes it (same bytes).  options: { bucketSize: 2|4|8 (4),
   * seed: integer or bigint (0), variant: 'plain'|'semisort' ('plain') }.
   */
  constructor(capacity, errorRate, options) {
    if (capacity === SKIP) return; /* CuckooFilter.from() */
    const o = options == null ? {} : options;
    if (typeof o !== 'object') {
      throw new TypeError('CuckooFilter: options must be an object such as ' +
        '{ bucketSize: 8, seed: 7, variant: "semisort" }');
    }
    for (const k of Object.keys(o)) {
      if (k !== 'bucketSize' && k !== 'seed' && k !== 'variant') {
        throw new TypeError(`CuckooFilter: unknown option "${k}" (valid options: ` +
          'bucketSize: 2|4|8, seed: <integer>, variant: "plain"|"semisort")');
      }
    }
    const cap = typeof capacity === 'bigint' ? Number(capacity) : capacity;
    if (!Number.isInteger(cap) || cap < 1) {
      throw new RangeError(`CuckooFilter: capacity must be a positive integer (got ${describe(capacity)})`);
    }
    const rate = errorRate == null ? DEFAULT_ERROR_RATE : errorRate;
    if (typeof rate !== 'number') {
      throw new TypeError('CuckooFilter: errorRate must be a number > 0 and < 1, ' +
        `or null for the default (got ${describe(rate)})`);
    }
    const b = o.bucketSize == null ? 4 : o.bucketSize;
    const variant = o.variant == null ? 'plain' : o.variant;
    if (variant !== 'plain' && variant !== 'semisort') {
      throw new RangeError(`CuckooFilter: variant must be "plain" or "semisort" (got ${describe(variant)})`);
    }
    heap.dv.setBigInt64(seedAt, seedOf(o.seed), true);
    const h = W.ckf_create(cap, rate, Number.isInteger(b) ? b : 0, seedAt,
      variant === 'semisort' ? 1 : 0, out);
    if (h === 0) {
      const rc = heap.dv.getInt32(out, true);
      const msg = [
        '',
        `bucketSize must be 2, 4 or 8 (got ${describe(b)})`,
        `errorRate must be > 0 and < 1 (got ${rate})`,
        `errorRate ${rate} needs more than 32-bit fingerprints (smallest ` +
          `allowed with bucketSize=${b} is ${(2 * b) / 4294967296})`,
        `semisort needs bucketSize=4 (got bucketSize=${b})`,
        `capacity ${cap} is too large (a filter has at most 4294967294 ` +
          `buckets of ${b} slots)`,
        'out of memory',
      ][rc];
      throw new RangeError(`CuckooFilter: ${msg}`);
    }
    this._adopt(h);
  }

  _adopt(h) {
    this._h = h;
    if (registry) registry.register(this, h, this);
  }

  _live(who) {
    if (!this._h) throw new Error(`CuckooFilter.${who}: the filter was freed`);
    return this._h;
  }

  /**
   * A filter from a BLOB (a copy of it): every header field is checked
   * against the length first (docs/format.md, "Validation"); bytes that
   * are not a filter are a RangeError saying which field is wrong.
   */
  static from(bytes) {
    let u8 = bytes;
    if (bytes instanceof ArrayBuffer) u8 = new Uint8Array(bytes);
    if (!(u8 instanceof Uint8Array)) {
      throw new TypeError(`CuckooFilter.from: bytes must be a Uint8Array (got ${describe(bytes)})`);
    }
    const p = itemSpace(u8.length || 1);
    heap.u8.set(u8, p);
    const h = W.ckf_open(p, u8.length, out);
    if (h === 0) {
      const why = heap.dv.getUint32(out, true);
      if (why === 0) throw new RangeError('CuckooFilter.from: out of memory');
      throw new RangeError(`CuckooFilter.from: not a valid cuckoo filter: ${heap.cstring(why)}`);
    }
    const f = new CuckooFilter(SKIP);
    f._adopt(h);
    return f;
  }

  /** True if item is probably in the filter, false if it certainly is not. */
  contains(item) {
    return itemOp(this._live('contains'), OP_CONTAINS, item, 'contains') === 1;
  }

  /**
   * Adds one copy of item.  A full filter, or an item whose two buckets
   * hold only copies of it, is an Error and changes nothing.  Returns this.
   */
  add(item) {
    const h = this._live('add');
    const rc = itemOp(h, OP_ADD, item, 'add');
    if (rc === CF_FULL) {
      const n = this.count();
      const cap = this.info().capacity;
      throw new Error(`CuckooFilter.add: filter is full (${n} item${n === 1 ? '' : 's'} ` +
        `stored, capacity ${cap}): the item did not fit; nothing was changed`);
    }
    if (rc === CF_TOO_MANY) {
      throw new Error('CuckooFilter.add: too many copies of one item (at most ' +
        `${2 * this.info().bucket_size} copies of an item fit: both of its ` +
        'buckets are full of it); nothing was changed');
    }
    return this;
  }

  /**
   * Removes one copy of item: true if one was there.  Remove only what
   * was added (a false positive's removal can remove another item).
   */
  remove(item) {
    const rc = itemOp(this._live('remove'), OP_REMOVE, item, 'remove');
    if (rc < 0) {
      throw new Error('CuckooFilter.remove: the filter is corrupt (a ' +
        'fingerprint found while its item count is 0); nothing was changed');
    }
    return rc === 1;
  }

  /**
   * With no argument, the number of items stored (copies count); with an
   * item, the copies of its fingerprint in its two buckets (as
   * cuckoo_count(filter, item)).
   */
  count(item) {
    const h = this._live('count');
    if (arguments.length === 0) return Number(this._header().getBigUint64(24, true));
    return itemOp(h, OP_COUNT, item, 'count');
  }

  _header() {
    const h = this._h;
    return new DataView(heap.u8.buffer, W.ckf_blob(h), HEADER);
  }

  /** What cuckoo_info(filter) says, as an object (seed as a BigInt). */
  info() {
    const h = this._live('info');
    const d = this._header();
    const flags = d.getUint8(5);
    const b = d.getUint8(6);
    const fp = d.getUint8(7);
    const buckets = Number(d.getBigUint64(8, true));
    const capacity = Number(d.getBigUint64(16, true));
    const count = Number(d.getBigUint64(24, true));
    const seed = d.getBigUint64(32, true);
    const bytes = W.ckf_blob_size(h);
    const slots = buckets * b;
    const minBits = W.ckf_min_fp_bits(b);
    const lo = (2 * b) / 2 ** fp;
    const hi = fp === minBits ? 1 : Math.min(1, 2 * lo);
    const fprCap = 1 - Math.pow(1 - capacity / slots / (2 ** fp - 1), 2 * b);
    const info = {
      version: d.getUint8(4),
      variant: flags & 1 ? 'semisort' : 'plain',
      capacity,
      buckets,
      bucket_size: b,
      fingerprint_bits: fp,
      count,
      load_factor: count / slots,
      bytes,
      bits_per_item: ((bytes - HEADER) * 8) / capacity,
      expected_fpr: W.ckf_expected_fpr(h),
      seed,
      error_rate_range: [lo, hi],
      fpr_at_capacity: fprCap,
    };
    return info;
  }

  /** The filter's BLOB (a copy), byte for byte what SQL would store. */
  toBytes() {
    const h = this._live('toBytes');
    const p = W.ckf_blob(h);
    return heap.u8.slice(p, p + W.ckf_blob_size(h));
  }

  /** Frees the filter's memory now (else it is freed when collected). */
  free() {
    if (this._h) {
      if (registry) registry.unregister(this);
      W.ckf_close(this._h);
      this._h = 0;
    }
  }

  /**
   * Lookups of the integers first .. first+n-1 inside WebAssembly, the
   * number found (for make bench-wasm: the core's speed without the
   * JavaScript call).
   */
  _benchInts(first, n) {
    return W.ckf_bench_ints(this._live('_benchInts'), first, n);
  }
}

const SKIP = Symbol('skip');

export default CuckooFilter;
