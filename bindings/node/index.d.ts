// Types of sqlite-cuckoo (index.js). MIT License: see LICENSE.

/** The absolute path of the extension built at install; throws if it is missing. */
export function getLoadablePath(): string;

/** The `sqlite3` package: resolves once the extension is loaded. */
export function load<D extends { loadExtension(path: string, cb: (err: Error | null) => void): unknown; parallelize(): unknown }>(db: D): Promise<D>;
/** A synchronous client (better-sqlite3): loads now, throws on failure. */
export function load<D extends { loadExtension(path: string): unknown }>(db: D): D;
/** Either kind of client: callback(err, db) when done. */
export function load<D>(db: D, callback: (err: Error | null, db: D) => void): void;
