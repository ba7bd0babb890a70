# mk/wasm.mk: cuckoo as WebAssembly, the npm package bindings/wasm
# (sqlite-cuckoo-wasm): SQLite with the extension built in, and the core
# filter alone for web pages.
#
#   make wasm        bindings/wasm/cuckoo-sqlite.wasm: SQLite WASM_SQLITE's
#                    amalgamation (tests/compat/build.sh --src, from npm)
#                    with every ext/*.c, cuckoo registered on every
#                    connection (SQLITE_EXTRA_INIT, bindings/wasm/src/sqlite.c);
#                    bindings/wasm/cuckoo-filter.wasm: the core (CORESRC)
#                    and bindings/wasm/src/filter.c.  Debian's emscripten;
#                    SQLite's object file is kept in build/wasm (2 to 3
#                    minutes to compile, once)
#   make test-wasm   tests/wasm/run.sh: the package packed and installed
#                    into a scratch project with no C compiler on PATH,
#                    Node tests of both modules against the native
#                    extension, the same tests in headless Chromium from a
#                    local HTTP server, the ```mjs and ```html snippets of
#                    the docs (part of `make test`)
#   make bench-wasm  lookups in Chromium against native (tests/wasm/bench.sh;
#                    the table of docs/benchmarks.md, "WebAssembly")
#
# Debian's emcc (3.1.6) finds its JavaScript dependencies (acorn) only with
# NODE_PATH=/usr/share/nodejs.  The modules are built with
# -sSTANDALONE_WASM: no emscripten JavaScript glue (whose 3.1.6 loader
# tries fetch() on a file path in Node 20); bindings/wasm/load.js
# instantiates them in browsers and in Node alike.  Both are release
# builds: -DNDEBUG (RELFLAGS), as cuckoo.so.

WASM_SQLITE := 3.54.1
WASM_PKGS   := emscripten nodejs libxxhash-dev
WASM_DIR    := build/wasm
EMCC        := NODE_PATH=/usr/share/nodejs emcc
WASM_LDFLAGS := -sSTANDALONE_WASM=1 --no-entry -sALLOW_MEMORY_GROWTH=1 \
                -sERROR_ON_UNDEFINED_SYMBOLS=1
# SQLite for the browser: one thread, databases and temporary storage in
# memory (the VFS of bindings/wasm/src/sqlite.c opens no file).
WASM_SQLITE_DEFS := -DSQLITE_OS_OTHER=1 -DSQLITE_EXTRA_INIT=ckw_extra_init \
  -DSQLITE_THREADSAFE=0 -DSQLITE_TEMP_STORE=3 -DSQLITE_OMIT_LOAD_EXTENSION \
  -DSQLITE_OMIT_LOCALTIME -DSQLITE_DEFAULT_MEMSTATUS=0 \
  -DSQLITE_OMIT_DEPRECATED -DSQLITE_OMIT_SHARED_CACHE \
  -DSQLITE_ENABLE_MATH_FUNCTIONS -DSQLITE_OMIT_PROGRESS_CALLBACK
# What bindings/wasm/sqlite.js calls.
WASM_SQLITE_EXPORTS := sqlite3_open_v2 sqlite3_close_v2 sqlite3_errmsg \
  sqlite3_errstr sqlite3_extended_errcode sqlite3_prepare_v2 sqlite3_finalize \
  sqlite3_reset sqlite3_clear_bindings sqlite3_bind_parameter_count \
  sqlite3_bind_parameter_index sqlite3_bind_null sqlite3_bind_double \
  sqlite3_bind_text sqlite3_bind_blob sqlite3_bind_zeroblob sqlite3_step \
  sqlite3_column_count sqlite3_column_name sqlite3_column_type \
  sqlite3_column_double sqlite3_column_text sqlite3_column_bytes \
  sqlite3_column_blob sqlite3_changes sqlite3_serialize sqlite3_malloc \
  sqlite3_free sqlite3_libversion ckw_bind_int64 ckw_column_int64 \
  ckw_deserialize
wasm_comma := ,
wasm_exports = -sEXPORTED_FUNCTIONS=[$(subst $() ,$(wasm_comma),$(foreach f,$(1),'_$(f)'))]

.PHONY: wasm wasm-deps test-wasm bench-wasm

## wasm: bindings/wasm's two modules, SQLite with cuckoo and the filter alone (emscripten)
wasm: bindings/wasm/cuckoo-sqlite.wasm bindings/wasm/cuckoo-filter.wasm

## wasm-deps: the Debian packages of make wasm (emscripten)
wasm-deps:
	@sh tests/deps.sh $(WASM_PKGS)

# emcc's include path has no /usr/include: xxhash.h alone is copied.
$(WASM_DIR)/inc/xxhash.h: | wasm-deps
	@mkdir -p $(WASM_DIR)/inc
	cp /usr/include/xxhash.h $@

$(WASM_DIR)/sqlite-src/sqlite3.c: tests/compat/versions
	sh tests/compat/build.sh --src $(WASM_SQLITE) $(WASM_DIR)/sqlite-src

# SQLite's object is compiled again only when its source or its flags
# change (the flags are kept in sqlite-flags, rewritten when they differ).
$(WASM_DIR)/sqlite-flags: wasm_always
	@mkdir -p $(WASM_DIR)
	@echo '$(WASM_SQLITE) -O2 $(WASM_SQLITE_DEFS)' | cmp -s - $@ || \
	  echo '$(WASM_SQLITE) -O2 $(WASM_SQLITE_DEFS)' > $@
wasm_always:

$(WASM_DIR)/sqlite3.o: $(WASM_DIR)/sqlite-src/sqlite3.c $(WASM_DIR)/sqlite-flags | wasm-deps
	$(EMCC) -O2 -c $(WASM_SQLITE_DEFS) -o $@ $<

bindings/wasm/cuckoo-sqlite.wasm: $(WASM_DIR)/sqlite3.o $(EXTSRC) $(EXTHDR) \
    bindings/wasm/src/sqlite.c bindings/wasm/src/imports.js \
    $(WASM_DIR)/inc/xxhash.h mk/wasm.mk
	$(EMCC) -O2 $(RELFLAGS) $(WASM_LDFLAGS) -DSQLITE_CORE -Iext -I$(WASM_DIR)/inc \
	  -I$(WASM_DIR)/sqlite-src --js-library bindings/wasm/src/imports.js \
	  "$(call wasm_exports,$(WASM_SQLITE_EXPORTS))" -o $@ \
	  $(WASM_DIR)/sqlite3.o bindings/wasm/src/sqlite.c $(EXTSRC)

bindings/wasm/cuckoo-filter.wasm: $(CORESRC) $(EXTHDR) bindings/wasm/src/filter.c \
    $(WASM_DIR)/inc/xxhash.h mk/wasm.mk
	$(EMCC) -O2 $(RELFLAGS) $(WASM_LDFLAGS) -Iext -I$(WASM_DIR)/inc -o $@ \
	  bindings/wasm/src/filter.c $(CORESRC)

## test-wasm: both modules against ./cuckoo.so, byte for byte, in Node and headless Chromium
test-wasm: wasm cuckoo.so
	@sh tests/deps.sh $(WASM_PKGS) chromium python3 sqlite3
	@command -v npm >/dev/null || sh tests/deps.sh npm
	sh tests/wasm/run.sh

## bench-wasm: lookups in headless Chromium against native (docs/benchmarks.md)
bench-wasm: wasm cuckoo.so
	@sh tests/deps.sh $(WASM_PKGS) chromium gcc
	CORESRC="$(CORESRC)" sh tests/wasm/bench.sh
