// Types of sqlite-cuckoo-wasm/filter (filter.js): the cuckoo filter core
// as WebAssembly, without SQLite.  Part of cuckoo (MIT License).

/** An item: string = TEXT (UTF-8), number = INTEGER when integral, else
 * REAL, bigint = INTEGER (64-bit), Uint8Array = BLOB (docs/format.md). */
export type Item = string | number | bigint | Uint8Array;

export interface CuckooFilterOptions {
  /** Slots per bucket: 2, 4 (default) or 8. */
  bucketSize?: 2 | 4 | 8;
  /** The 64-bit hash seed (default 0). */
  seed?: number | bigint;
  /** Bucket encoding (default "plain"); "semisort" needs bucketSize 4. */
  variant?: 'plain' | 'semisort';
}

/** What cuckoo_info() says (without its error_rate_note text). */
export interface CuckooFilterInfo {
  version: number;
  variant: 'plain' | 'semisort';
  capacity: number;
  buckets: number;
  bucket_size: number;
  fingerprint_bits: number;
  count: number;
  load_factor: number;
  bytes: number;
  bits_per_item: number;
  expected_fpr: number;
  seed: bigint;
  error_rate_range: [number, number];
  fpr_at_capacity: number;
}

export class CuckooFilter {
  /** An empty filter, byte for byte cuckoo_new(capacity, errorRate, options). */
  constructor(capacity: number | bigint, errorRate?: number | null, options?: CuckooFilterOptions | null);
  /** A copy of a filter BLOB, validated (RangeError if it is not one). */
  static from(bytes: Uint8Array | ArrayBuffer): CuckooFilter;
  /** True if probably present, false if certainly absent. */
  contains(item: Item): boolean;
  /** Adds one copy; throws (changing nothing) when it does not fit. */
  add(item: Item): this;
  /** Removes one copy: true if there was one. */
  remove(item: Item): boolean;
  /** Items stored (copies count), or the copies of one item's fingerprint. */
  count(item?: Item): number;
  info(): CuckooFilterInfo;
  /** The BLOB, as cuckoo_contains() and the other functions take it. */
  toBytes(): Uint8Array;
  /** Frees the memory now (else when the object is collected). */
  free(): void;
}

export default CuckooFilter;
