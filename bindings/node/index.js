// sqlite-cuckoo: find and load the cuckoo SQLite extension that
// `npm install` built from source (install.js).
// Copyright (c) 2026 the cuckoo authors. MIT License: see LICENSE.
'use strict';

const fs = require('fs');
const path = require('path');

// The file name install.js writes: SQLite's own suffix for a loadable
// extension on this platform.
const LIBRARY_FILE = 'cuckoo' + (process.platform === 'darwin' ? '.dylib' : '.so');
const LIBRARY_PATH = path.join(__dirname, 'build', LIBRARY_FILE);

// The absolute path of the built extension; throws when it is missing
// (the install script did not run or failed).
function getLoadablePath() {
  if (!fs.existsSync(LIBRARY_PATH)) {
    throw new Error(
      'sqlite-cuckoo: the extension was not built (' + LIBRARY_PATH +
      ' is missing). Run `npm rebuild sqlite-cuckoo` and read its output; ' +
      'building needs a C compiler and the SQLite and xxHash headers ' +
      '(Debian and Ubuntu: apt-get install gcc libsqlite3-dev libxxhash-dev).');
  }
  return LIBRARY_PATH;
}

// A database of the `sqlite3` package (and its forks) loads extensions
// asynchronously: loadExtension(path, callback). Such a Database is told
// apart by its parallelize() method, which synchronous clients lack.
function isCallbackClient(db) {
  return typeof db.parallelize === 'function';
}

// load(db): loads the extension into one connection.
//   - better-sqlite3 (or any client whose db.loadExtension(path) is
//     synchronous): loads now, throws on failure, returns db.
//   - the `sqlite3` package: returns a Promise that resolves to db once
//     the extension is loaded and rejects with the loading error.
// load(db, callback): either way, calls callback(err, db) when done
// (err is null on success) and returns undefined.
function load(db, callback) {
  if (!db || typeof db.loadExtension !== 'function') {
    throw new TypeError('sqlite-cuckoo: load(db) needs a database object with a loadExtension method');
  }
  if (callback !== undefined && typeof callback !== 'function') {
    throw new TypeError('sqlite-cuckoo: the second argument of load(db, callback) must be a function');
  }
  let file;
  try {
    file = getLoadablePath();
  } catch (err) {
    if (callback) {
      process.nextTick(callback, err, db);
      return undefined;
    }
    if (isCallbackClient(db)) return Promise.reject(err);
    throw err;
  }
  if (isCallbackClient(db)) {
    if (callback) {
      db.loadExtension(file, (err) => callback(err || null, db));
      return undefined;
    }
    return new Promise((resolve, reject) => {
      db.loadExtension(file, (err) => (err ? reject(err) : resolve(db)));
    });
  }
  if (callback) {
    let error = null;
    try {
      db.loadExtension(file);
    } catch (err) {
      error = err;
    }
    process.nextTick(callback, error, db);
    return undefined;
  }
  db.loadExtension(file);
  return db;
}

module.exports = { getLoadablePath, load };
