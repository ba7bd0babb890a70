// Types of sqlite-cuckoo-wasm (sqlite.js): SQLite with the cuckoo
// extension built in, as WebAssembly.  Part of cuckoo (MIT License).

/** A value SQLite gives back: NULL, INTEGER (bigint beyond 2^53 - 1),
 * REAL, TEXT or BLOB. */
export type SqlValue = null | number | bigint | string | Uint8Array;

/** A value to bind: also booleans (0 or 1) and undefined (NULL). */
export type BindValue = SqlValue | boolean | undefined;

/** Positional (?, ?NNN) or named (:name, @name, $name) parameters. */
export type BindParams = BindValue[] | { [name: string]: BindValue };

/** The rows of one statement: exec() returns one per statement with rows. */
export interface QueryResult {
  columns: string[];
  values: SqlValue[][];
}

/** The version of the SQLite built in, e.g. "3.54.1". */
export const sqliteVersion: string;

/** An error from SQLite: message is sqlite3_errmsg(), code the extended
 * result code (e.g. 1555 for SQLITE_CONSTRAINT_PRIMARYKEY). */
export class SQLiteError extends Error {
  readonly code: number;
}

export class Statement {
  /** Resets, clears bindings, binds params; returns true. */
  bind(params?: BindParams | null): true;
  /** Steps: true if a row is ready, false when done. */
  step(): boolean;
  /** The current row (binds params and steps first when given). */
  get(params?: BindParams | null): SqlValue[];
  /** The current row keyed by column name. */
  getAsObject(params?: BindParams | null): { [column: string]: SqlValue };
  getColumnNames(): string[];
  /** Resets the statement to run again; bindings are kept. */
  reset(): true;
  /** Finalizes the statement. */
  free(): true;
}

export class Database {
  /** An empty in-memory database, or a copy of a database file's bytes. */
  constructor(bytes?: Uint8Array | null);
  /** Runs every statement of sql; params go to each statement that has
   * parameters.  Returns the rows of the statements that gave rows. */
  exec(sql: string, params?: BindParams | null): QueryResult[];
  /** exec() that returns the database. */
  run(sql: string, params?: BindParams | null): Database;
  /** The first statement of sql, prepared (and bound, given params). */
  prepare(sql: string, params?: BindParams | null): Statement;
  /** Rows changed by the last INSERT, UPDATE or DELETE. */
  changes(): number;
  /** The database file's bytes: new Database(bytes) reopens it. */
  export(): Uint8Array;
  /** Frees the statements left and closes the database. */
  close(): void;
}

export default Database;
