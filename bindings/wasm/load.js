// load.js: loads one of the package's WebAssembly modules (internal to
// sqlite-cuckoo-wasm; part of cuckoo, MIT License, see LICENSE).
//
// The .wasm file sits beside this file.  In Node (and Bun, which has
// `process.versions.node`) a file: URL is read with node:fs, since
// Node's fetch does not take file: URLs; everywhere else (browsers, Deno,
// http: URLs) it is fetched.  The modules are built with emcc
// -sSTANDALONE_WASM (mk/wasm.mk): no JavaScript glue, so the instance's
// exports are the C functions themselves.

async function wasmBytes(url) {
  const node =
    typeof process === 'object' && process && process.versions &&
    process.versions.node;
  if (url.protocol === 'file:' && node) {
    const { readFile } = await import('node:fs/promises');
    return readFile(url);
  }
  const res = await fetch(url);
  if (!res.ok) {
    throw new Error(`sqlite-cuckoo-wasm: cannot load ${url}: HTTP ${res.status}`);
  }
  return res.arrayBuffer();
}

// A memory view that follows growth: `heap.u8` is a Uint8Array over the
// instance's whole memory, made again after memory.grow() detached the
// old one (the module tells emscripten_notify_memory_growth).
export class Heap {
  constructor() {
    this.memory = null;
    this._u8 = null;
    this._dv = null;
  }
  get u8() {
    if (this._u8 === null || this._u8.byteLength === 0) {
      this._u8 = new Uint8Array(this.memory.buffer);
    }
    return this._u8;
  }
  get dv() {
    if (this._dv === null || this._dv.byteLength === 0) {
      this._dv = new DataView(this.memory.buffer);
    }
    return this._dv;
  }
  grown() {
    this._u8 = null;
    this._dv = null;
  }
  // The NUL-terminated UTF-8 string at p.
  cstring(p) {
    const u8 = this.u8;
    let e = p;
    while (u8[e] !== 0) e++;
    return utf8.decode(u8.subarray(p, e));
  }
}

export const utf8 = new TextDecoder('utf-8');
export const utf8enc = new TextEncoder();

// The WASI functions a module may import: the C library's stdio and exit,
// reached only by a failed assert() in a module built without -DNDEBUG
// (make wasm defines it, as for the native release build; a debug build
// keeps the asserts): its message goes to console.error, and exit
// throws, so the failure reaches the caller as an Error.  Any other WASI
// function answers ENOSYS.
function wasi(heap) {
  const ENOSYS = 52;
  let line = '';
  return {
    fd_write(fd, iovs, n, nwritten) {
      const dv = heap.dv;
      let total = 0;
      for (let i = 0; i < n; i++) {
        const p = dv.getUint32(iovs + 8 * i, true);
        const len = dv.getUint32(iovs + 8 * i + 4, true);
        line += utf8.decode(heap.u8.subarray(p, p + len));
        total += len;
      }
      const lines = line.split('\n');
      line = lines.pop();
      for (const l of lines) console.error(l);
      dv.setUint32(nwritten, total, true);
      return 0;
    },
    proc_exit(code) {
      throw new Error(`sqlite-cuckoo-wasm: the module stopped (exit ${code}): ${line}`);
    },
    fallback: () => ENOSYS,
  };
}

// Instantiates file `name` (beside this module) with the `env` imports
// and `heap`; returns the exports, constructors run (_initialize).
export async function instantiate(name, env, heap) {
  const url = new URL(name, import.meta.url);
  const module = await WebAssembly.compile(await wasmBytes(url));
  const w = wasi(heap);
  const imports = {
    env: { ...env, emscripten_notify_memory_growth: () => heap.grown() },
    wasi_snapshot_preview1: {},
  };
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.module === 'wasi_snapshot_preview1' && imp.kind === 'function') {
      imports.wasi_snapshot_preview1[imp.name] = w[imp.name] || w.fallback;
    }
  }
  const instance = await WebAssembly.instantiate(module, imports);
  const x = instance.exports;
  heap.memory = x.memory;
  x._initialize();
  return x;
}
