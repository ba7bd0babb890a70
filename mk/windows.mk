# mk/windows.mk: the Windows x86-64 build, cross-compiled with Debian's
# mingw-w64 and tested under wine (docs/install.md#windows).
#
#   make windows       build/windows/cuckoo.dll, from the amalgamation of
#                      make dist (dist/amalgamate.sh) and Debian's SQLite
#                      headers, as cuckoo.so (make dist ships it), and
#                      build/windows/sqlite3.exe, the shell of SQLite
#                      WIN_SQLITE (shell.c and sqlite3.c from npm packages,
#                      unpacked by tests/compat/build.sh --src)
#   make test-windows  tests/windows/run.sh under wine64: the demo, every
#                      filter BLOB compared with Linux's, database files
#                      written on each system and read and changed on the
#                      other, malformed input, the Windows snippets of
#                      docs/install.md with the release tarball, the core's
#                      BLOB files and core_test, and the cl /LD command
#                      of docs/install.md with clang-cl for cl
#                      (tests/windows/msvc.sh) (part of make test)
#
# The cross compiler must not see the host's headers: xxhash.h and
# SQLite's headers are copied into build/windows/inc.

WIN_SQLITE ?= $(COMPAT_NEWEST)
WIN_CC     := x86_64-w64-mingw32-gcc
WIN_PKGS   := gcc-mingw-w64-x86-64 libxxhash-dev libsqlite3-dev
# clang-tools-14 (clang-cl), lld and libwine-dev (Wine's headers of the
# Microsoft C runtime, its import libraries): tests/windows/msvc.sh.
WIN_TEST_PKGS := $(WIN_PKGS) wine64 sqlite3 gcc libsqlite3-dev \
  clang-tools-14 lld libwine-dev
WIN        := build/windows
# SQLite's compile options for the shell: those of Debian's build that
# matter to the extension and its tests (math and JSON functions,
# threads, URI file names).
WIN_SQLITE_OPTS := -DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_MATH_FUNCTIONS \
  -DSQLITE_ENABLE_DBSTAT_VTAB -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_RTREE \
  -DSQLITE_USE_URI=1
# No timestamp in the PE header: the same sources give the same DLL.
WIN_LDFLAGS := -Wl,--no-insert-timestamp

.PHONY: windows test-windows windows-deps

## windows-deps: the Debian packages that build cuckoo.dll (mingw-w64, headers)
windows-deps:
	@sh tests/deps.sh $(WIN_PKGS)

## windows: build/windows/cuckoo.dll and sqlite3.exe, cross-built with mingw-w64
windows: windows-deps
	@command -v npm >/dev/null || sh tests/deps.sh npm
	@$(MAKE) --no-print-directory $(WIN)/cuckoo.dll $(WIN)/sqlite3.exe

# SQLite's sources, once per version.
$(WIN)/sqlite-$(WIN_SQLITE)/SOURCES: tests/compat/build.sh tests/compat/versions
	sh tests/compat/build.sh --src $(WIN_SQLITE) $(@D)

$(WIN)/inc/xxhash.h: /usr/include/xxhash.h
	@mkdir -p $(@D)
	cp $< $@

$(WIN)/inc/sqlite3.h: /usr/include/sqlite3.h
	@mkdir -p $(@D)
	cp $< $@

$(WIN)/inc/sqlite3ext.h: /usr/include/sqlite3ext.h
	@mkdir -p $(@D)
	cp $< $@

WIN_INC := $(WIN)/inc/xxhash.h $(WIN)/inc/sqlite3.h $(WIN)/inc/sqlite3ext.h

$(WIN)/cuckoo.c: $(EXTSRC) $(EXTHDR) dist/amalgamate.sh
	@mkdir -p $(@D)
	sh dist/amalgamate.sh > $@

# The amalgamation leaves one external name, the entry point (declared
# __declspec(dllexport) on Windows), so the DLL exports nothing else.
$(WIN)/cuckoo.dll: $(WIN)/cuckoo.c $(WIN_INC)
	$(WIN_CC) $(CFLAGS) $(WARN) -shared -s -I$(WIN)/inc $(WIN_LDFLAGS) -o $@ $<

$(WIN)/sqlite3.o: $(WIN)/sqlite-$(WIN_SQLITE)/SOURCES
	$(WIN_CC) -O2 -w $(WIN_SQLITE_OPTS) -c -o $@ $(WIN)/sqlite-$(WIN_SQLITE)/sqlite3.c

# shell.c's main is wmain on Windows: -municode.
$(WIN)/sqlite3.exe: $(WIN)/sqlite3.o $(WIN)/sqlite-$(WIN_SQLITE)/SOURCES
	$(WIN_CC) -O2 -w -municode $(WIN_SQLITE_OPTS) -I$(WIN)/sqlite-$(WIN_SQLITE) \
	  $(WIN_LDFLAGS) -o $@ $(WIN)/sqlite-$(WIN_SQLITE)/shell.c $(WIN)/sqlite3.o

# The core's test programs, from ext/*.c (whose hidden-visibility
# attribute means nothing to a PE target: -Wno-attributes).
$(WIN)/blob_tool.exe: tests/cross/blob_tool.c $(EXTSRC) $(EXTHDR) $(WIN_INC)
	$(WIN_CC) $(CFLAGS) $(WARN) -Wno-attributes -I$(WIN)/inc -Iext -o $@ $< $(CORESRC)

$(WIN)/core_test.exe: tests/core_test.c $(EXTSRC) $(EXTHDR) $(WIN_INC)
	$(WIN_CC) $(CFLAGS) $(WARN) -Wno-attributes -I$(WIN)/inc -Iext -o $@ $< $(CORESRC)

# core_test with cuckoo_port.h's plain-C branch (tests/windows/msvc.sh).
$(WIN)/core_portable_test: tests/core_test.c $(EXTSRC) $(EXTHDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -DCF_PORT_FORCE_C -Iext -o $@ $< $(CORESRC) -lm

## test-windows: the Windows build under wine64, compared with Linux's (part of make test)
test-windows: compat-deps
	@sh tests/deps.sh $(WIN_TEST_PKGS)
	@$(MAKE) --no-print-directory cuckoo.so build/cross/blob_tool \
	  $(WIN)/cuckoo.dll $(WIN)/sqlite3.exe $(WIN)/blob_tool.exe \
	  $(WIN)/core_test.exe $(WIN)/core_portable_test $(DISTNAME).tar.gz
	@sh tests/compat/build.sh $(WIN_SQLITE)
	sh tests/windows/run.sh $(WIN_SQLITE) $(DISTNAME).tar.gz
