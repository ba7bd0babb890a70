# cuckoo: a SQLite extension for cuckoo filters.
#
#   make            build ./cuckoo.so (load with .load ./cuckoo)
#   make help       every target, one line each
#   make test       everything CI runs: the parts listed in TEST_PARTS
#                   below, in that order (`make test-parts` prints them),
#                   with one closing line "N passed, N failed" adding them
#                   all up
#
# Each target has one line "## name: what it does" above its rule, here
# or in the fragment of mk/ that holds it (mk/bench.mk the benchmarks,
# mk/compat.mk other SQLite versions and CPUs, mk/pkg.mk installing and
# releasing, ...); `make help` prints those lines and fails when a .PHONY
# target has none.  `make demo` and the test targets first install missing
# Debian packages (the `deps` target checks with dpkg -s and only then
# runs apt-get).

CC      ?= gcc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror
EXTSRC  := $(wildcard ext/*.c)
EXTHDR  := $(wildcard ext/*.h)
CORESRC := ext/cuckoo_codec.c ext/cuckoo_hash.c ext/cuckoo_filter.c \
           ext/cuckoo_batch.c
CTESTS  := $(patsubst tests/%.c,build/%,$(wildcard tests/*_test.c))
ATESTS  := $(patsubst tests/%.c,build/asan/%,$(wildcard tests/*_test.c))
# The core test once more built with -DCF_NO_SIMD: on an AVX-512 machine the
# batches otherwise never take their scalar paths.  Its loops are divided
# by 5, as under the sanitizers (CORE_TEST_SCALE): every path, with the
# volume left to core_test itself.
CTESTS  += build/core_nosimd_test
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
            -fno-omit-frame-pointer
# The core's asserts (ext/cuckoo_core_int.h) are left out of the release
# builds (cuckoo.so, libcuckoo.a; the amalgamation of make dist defines
# NDEBUG itself) and kept in the test builds: build/check/cuckoo.so that
# `make check` loads, the C tests, and everything `make asan` builds.
RELFLAGS := -DNDEBUG
# Building (make, make demo, make static, make install) needs only
# BUILD_PKGS; the test targets install the rest.
BUILD_PKGS := gcc make libsqlite3-dev libxxhash-dev sqlite3
PKGS    := $(BUILD_PKGS) tcl libsqlite3-tcl clang libclang-rt-14-dev python3
# The long runs (make test-long)
MODEL_OPS   ?= 100000000
MODEL_JOBS  ?= 2
MODEL_SEED  ?= 1
CRASH_KILLS ?= 400
CRASH_SEED  ?= 1

.PHONY: all deps build-deps test test-parts help check asan demo static \
        clean fuzz test-fuzz test-long

## all: ./cuckoo.so, the loadable extension (what `make` alone builds)
all: cuckoo.so

cuckoo.so: $(EXTSRC) $(EXTHDR)
	@CC="$(CC)" sh dist/check-headers.sh
	$(CC) $(CFLAGS) $(RELFLAGS) $(WARN) -fPIC -shared -fvisibility=hidden -o $@ $(EXTSRC) -lm

# The test builds compile each source of ext/ once per flavour into
# build/obj/<flavour>/ and link those objects: check-so and asan-so for
# the loadable extension the Tcl suite loads, check-core and asan-core
# (-DSQLITE_CORE) for the C tests, which link it statically (the core
# tests take the core's objects from there too).  Compiling the whole of
# ext/ again for every test program was most of make asan's time.
EXTNAMES := $(notdir $(EXTSRC:.c=))
CORENAMES := $(notdir $(CORESRC:.c=))
objs = $(patsubst %,build/obj/$(1)/%.o,$(2))
ASANFLAGS := -O1 -g $(SANFLAGS)

build/obj/check-so/%.o: ext/%.c $(EXTHDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -fPIC -fvisibility=hidden -c -o $@ $<

build/obj/check-core/%.o: ext/%.c $(EXTHDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -DSQLITE_CORE -c -o $@ $<

build/obj/asan-so/%.o: ext/%.c $(EXTHDR)
	@mkdir -p $(@D)
	$(CC) $(ASANFLAGS) $(WARN) -fPIC -fvisibility=hidden -c -o $@ $<

build/obj/asan-core/%.o: ext/%.c $(EXTHDR)
	@mkdir -p $(@D)
	$(CC) $(ASANFLAGS) $(WARN) -DSQLITE_CORE -c -o $@ $<

build/check/cuckoo.so: $(call objs,check-so,$(EXTNAMES))
	@mkdir -p build/check
	$(CC) $(CFLAGS) -shared -o $@ $^ -lm

## deps: the Debian packages the test targets need (dpkg -s, then apt-get)
deps:
	@sh tests/deps.sh $(PKGS)

## build-deps: the Debian packages building needs (make, demo, static, install)
build-deps:
	@sh tests/deps.sh $(BUILD_PKGS)

build/%_test: tests/%_test.c $(EXTHDR) $(call objs,check-core,$(CORENAMES))
	@mkdir -p build
	$(CC) $(CFLAGS) $(WARN) -Iext -o $@ $< $(call objs,check-core,$(CORENAMES)) -lm

build/core_nosimd_test: tests/core_test.c $(EXTSRC) $(EXTHDR)
	@mkdir -p build
	$(CC) $(CFLAGS) $(WARN) -DCF_NO_SIMD -DCORE_TEST_SCALE=5 -Iext -o $@ $< $(CORESRC) -lm

build/asan/%_test: tests/%_test.c $(EXTHDR) $(call objs,asan-core,$(CORENAMES))
	@mkdir -p build/asan
	$(CC) $(ASANFLAGS) $(WARN) -Iext -o $@ $< $(call objs,asan-core,$(CORENAMES)) -lm

# C tests of the SQL layer (the out-of-memory sweep, the aggregates, the
# model test, the crash test, the I/O error sweep) link SQLite and the
# extension statically.
SQLCTESTS := fault_test agg_test model_test crash_test ioerr_test
TESTHDR := tests/testlib.h tests/vfsshim.h

$(addprefix build/,$(SQLCTESTS)): build/%: tests/%.c $(EXTHDR) $(TESTHDR) \
    $(call objs,check-core,$(EXTNAMES))
	@mkdir -p build
	$(CC) $(CFLAGS) $(WARN) -DSQLITE_CORE -Iext -o $@ $< \
	  $(call objs,check-core,$(EXTNAMES)) -lsqlite3 -lm

$(addprefix build/asan/,$(SQLCTESTS)): build/asan/%: tests/%.c $(EXTHDR) $(TESTHDR) \
    $(call objs,asan-core,$(EXTNAMES))
	@mkdir -p build/asan
	$(CC) $(ASANFLAGS) $(WARN) -DSQLITE_CORE -Iext -o $@ $< \
	  $(call objs,asan-core,$(EXTNAMES)) -lsqlite3 -lm

# The load-refusal test dlopen()s the built extension (CUCKOO_EXT).
build/loadver_test: tests/loadver_test.c
	@mkdir -p build
	$(CC) $(CFLAGS) $(WARN) -o $@ $< -lsqlite3 -ldl

build/asan/loadver_test: tests/loadver_test.c
	@mkdir -p build/asan
	$(CC) $(ASANFLAGS) $(WARN) -o $@ $< -lsqlite3 -ldl

build/asan/cuckoo.so: $(call objs,asan-so,$(EXTNAMES))
	@mkdir -p build/asan
	$(CC) $(ASANFLAGS) -shared -o $@ $^ -lm

# The parts of `make test`, in the order it runs them: each a target of
# this Makefile or of a fragment of mk/, run as `make PART` by
# tests/suite.sh, which adds up their "N passed, N failed" lines.  This is
# the one list: a new part (test-wasm of mk/wasm.mk, test-windows of
# mk/windows.mk, ...) is added here, one line each, at the end; its
# fragment defines the target and its "## " help line, and does not touch
# TEST_PARTS (the check after the include below stops make if one does).
TEST_PARTS := \
  check \
  asan \
  test-fuzz \
  test-compat \
  cross \
  test-tools \
  test-dqlite \
  test-dist \
  test-install \
  test-python \
  test-node \
  test-clients \
  test-windows \
  test-wasm
TEST_PARTS_LISTED := $(TEST_PARTS)

# Targets of their own (benchmarks, formatting, install and release,
# compatibility matrix, cross builds, client packages, the dqlite node)
# live in mk/*.mk.
include $(sort $(wildcard mk/*.mk))

ifneq ($(TEST_PARTS),$(TEST_PARTS_LISTED))
$(error TEST_PARTS was changed in mk/: list the parts of make test in the Makefile only)
endif

## test: every part of TEST_PARTS in order (CI), one closing "N passed, N failed"
test: deps
	@sh tests/suite.sh $(foreach p,$(TEST_PARTS),"$(MAKE) --no-print-directory $(p)")

## test-parts: print the parts of `make test`, in order, one a line
test-parts:
	@printf '%s\n' $(TEST_PARTS)

## help: print every target of the Makefile and mk/*.mk, one line each
help:
	@awk -f mk/help.awk Makefile $(sort $(wildcard mk/*.mk))
	@echo
	@echo "make test runs, in order: $(TEST_PARTS)"

# check and asan build what they run with BUILD_JOBS compilers at once
# (default: the number of CPUs), also when make itself was started
# without -j (as make test starts them).
BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 1)

## check: the suite, optimized, asserts on: tests/*.test and tests/*_test.c (short model and crash runs)
check: deps
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) cuckoo.so \
	  build/check/cuckoo.so $(CTESTS)
	tclsh tests/run.tcl --ext ./build/check/cuckoo.so $(CTESTS)

## test-long: the long runs: model test (MODEL_OPS, MODEL_JOBS) and crash test (CRASH_KILLS)
test-long: deps build/model_test build/crash_test
	@sh tests/suite.sh \
	  "build/model_test --ops $(MODEL_OPS) --jobs $(MODEL_JOBS) \
	     --seed $(MODEL_SEED) --dir build/model-long" \
	  "build/crash_test --kills $(CRASH_KILLS) --seed $(CRASH_SEED) \
	     --dir build/crash-long"

# The sanitized extension runs inside the stock tclsh, so the ASan
# runtime is preloaded there (--tcl-env: into the *.test files' tclsh
# only); leak checking is left to the C tests (tclsh itself does not free
# everything at exit).  The files and the C tests run in one run.tcl, so
# that the longest of each kind run side by side.
## asan: the suite again, extension and C tests built with -fsanitize=address,undefined
asan: deps
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) build/asan/cuckoo.so $(ATESTS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  tclsh tests/run.tcl --ext ./build/asan/cuckoo.so --sanitized \
	  --tcl-env ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
	  --tcl-env LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
	  $(ATESTS)

## demo: build ./cuckoo.so and run sql/demo.sql in the sqlite3 shell
demo: build-deps cuckoo.so
	sqlite3 :memory: < sql/demo.sql

# libFuzzer targets (clang): `fuzz` runs the fast build (UBSan, no ASan,
# no assertions, SQLite 3.54.1) of each for FUZZ_SECONDS and replays the
# corpus it grew with the replay build (ASan, UBSan, assertions, the same
# SQLite); `test-fuzz` runs the ASan build (the system's SQLite) for
# FUZZ_SHORT (part of `make test`).  See tests/fuzz/Makefile (FUZZ_RUNS, FUZZ_TARGETS).
## fuzz: each libFuzzer target (fast build) for FUZZ_SECONDS s, then an ASan replay of its corpus
fuzz: deps
	$(MAKE) -C tests/fuzz run

## test-fuzz: each libFuzzer target for FUZZ_SHORT s (part of make test)
test-fuzz: deps
	$(MAKE) -C tests/fuzz short

# libcuckoo.a holds one object: the extension's files linked together
# (ld -r) with every hidden symbol made local, so that only
# sqlite3_cuckoo_init is left for a program's link to see and no internal
# name (cf_*, cksql_*, ckst_*) can clash with the program's own.
## static: libcuckoo.a, built with -DSQLITE_CORE for static linking
static: libcuckoo.a

libcuckoo.a: $(EXTSRC) $(EXTHDR)
	@CC="$(CC)" sh dist/check-headers.sh
	@rm -rf build/static && mkdir -p build/static
	cd build/static && $(CC) $(CFLAGS) $(RELFLAGS) $(WARN) -fvisibility=hidden \
	  -DSQLITE_CORE -c $(addprefix ../../,$(EXTSRC))
	$(LD) -r -o build/static/libcuckoo.o $(addprefix build/static/,$(notdir $(EXTSRC:.c=.o)))
	objcopy --localize-hidden build/static/libcuckoo.o
	rm -f $@ && ar rcs $@ build/static/libcuckoo.o

## clean: remove build/, cuckoo.so, libcuckoo.a and release tarballs
clean:
	rm -rf build cuckoo.so libcuckoo.a cuckoo-*.tar.gz
	[ ! -f tests/bench/Makefile ] || $(MAKE) -C tests/bench clean
