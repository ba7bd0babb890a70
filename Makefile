# cuckoo: a SQLite extension for cuckoo filters.
#
#   make            build ./cuckoo.so (load with .load ./cuckoo)
#   make demo       run sql/demo.sql in the sqlite3 shell
#   make test       everything CI runs, in order: `check`, `asan`,
#                   `test-fuzz`, then the test targets the mk/*.mk
#                   fragments add (compatibility, cross-CPU, tools, cluster,
#                   packaging, clients); one closing line "N passed,
#                   N failed" adding them all up
#   make check      the suite, optimized: tests/*.test and tests/*_test.c
#                   (short model run and crash test included)
#   make asan       the suite again against the extension and C tests
#                   built with -fsanitize=address,undefined
#   make test-fuzz  each libFuzzer target of tests/fuzz for FUZZ_SHORT s
#   make test-long  the long runs: model test (MODEL_OPS operations in
#                   MODEL_JOBS processes) and crash test (CRASH_KILLS kills)
#   make fuzz       each libFuzzer target for FUZZ_SECONDS s
#   make bench      benchmarks (tests/bench), printed as tables
#   make figure     redraw the figures in docs/img (installs gnuplot-nox)
#   make static     libcuckoo.a built with -DSQLITE_CORE for static linking
#   make install    system-wide (PREFIX, DESTDIR; `make uninstall`), and
#   make dist       the release tarball: see mk/pkg.mk, docs/install.md
#
# `make demo` and the test targets first install missing Debian packages
# (the `deps` target checks with dpkg -s and only then runs apt-get).

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
# batches otherwise never take their scalar paths.
CTESTS  += build/core_nosimd_test
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
            -fno-omit-frame-pointer
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

.PHONY: all deps build-deps test check asan demo bench figure static clean fuzz test-fuzz \
        test-long

all: cuckoo.so

cuckoo.so: $(EXTSRC) $(EXTHDR)
	@CC="$(CC)" sh dist/check-headers.sh
	$(CC) $(CFLAGS) $(WARN) -fPIC -shared -fvisibility=hidden -o $@ $(EXTSRC) -lm

deps:
	@sh tests/deps.sh $(PKGS)

build-deps:
	@sh tests/deps.sh $(BUILD_PKGS)

build/%_test: tests/%_test.c $(EXTSRC) $(EXTHDR)
	@mkdir -p build
	$(CC) $(CFLAGS) $(WARN) -Iext -o $@ $< $(CORESRC) -lm

build/core_nosimd_test: tests/core_test.c $(EXTSRC) $(EXTHDR)
	@mkdir -p build
	$(CC) $(CFLAGS) $(WARN) -DCF_NO_SIMD -Iext -o $@ $< $(CORESRC) -lm

build/asan/%_test: tests/%_test.c $(EXTSRC) $(EXTHDR)
	@mkdir -p build/asan
	$(CC) -O1 -g $(SANFLAGS) $(WARN) -Iext -o $@ $< $(CORESRC) -lm

# C tests of the SQL layer (the out-of-memory sweep, the aggregates, the
# model test, the crash test) link SQLite and the extension statically.
SQLCTESTS := fault_test agg_test model_test crash_test

$(addprefix build/,$(SQLCTESTS)): build/%: tests/%.c $(EXTSRC) $(EXTHDR)
	@mkdir -p build
	$(CC) $(CFLAGS) $(WARN) -DSQLITE_CORE -Iext -o $@ $< $(EXTSRC) -lsqlite3 -lm

$(addprefix build/asan/,$(SQLCTESTS)): build/asan/%: tests/%.c $(EXTSRC) $(EXTHDR)
	@mkdir -p build/asan
	$(CC) -O1 -g $(SANFLAGS) $(WARN) -DSQLITE_CORE -Iext -o $@ $< $(EXTSRC) \
	  -lsqlite3 -lm

# The load-refusal test dlopen()s the built extension (CUCKOO_EXT).
build/loadver_test: tests/loadver_test.c
	@mkdir -p build
	$(CC) $(CFLAGS) $(WARN) -o $@ $< -lsqlite3 -ldl

build/asan/loadver_test: tests/loadver_test.c
	@mkdir -p build/asan
	$(CC) -O1 -g $(SANFLAGS) $(WARN) -o $@ $< -lsqlite3 -ldl

build/asan/cuckoo.so: $(EXTSRC) $(EXTHDR)
	@mkdir -p build/asan
	$(CC) -O1 -g $(SANFLAGS) $(WARN) -fPIC -shared -fvisibility=hidden -o $@ $(EXTSRC) -lm

# The parts of `make test`, in order; the fragments in mk/ append theirs.
TEST_PARTS := "$(MAKE) --no-print-directory check" \
              "$(MAKE) --no-print-directory asan" \
              "$(MAKE) --no-print-directory test-fuzz"

# Targets of their own (install, compatibility matrix, cross builds,
# client packages, the dqlite node) live in mk/*.mk.
include $(sort $(wildcard mk/*.mk))

test: deps
	@sh tests/suite.sh $(TEST_PARTS)

check: deps cuckoo.so $(CTESTS)
	tclsh tests/run.tcl --ext ./cuckoo.so $(CTESTS)

test-long: deps build/model_test build/crash_test
	@sh tests/suite.sh \
	  "build/model_test --ops $(MODEL_OPS) --jobs $(MODEL_JOBS) \
	     --seed $(MODEL_SEED) --dir build/model-long" \
	  "build/crash_test --kills $(CRASH_KILLS) --seed $(CRASH_SEED) \
	     --dir build/crash-long"

# The sanitized extension runs inside the stock tclsh, so the ASan
# runtime is preloaded; leak checking is left to the C tests (tclsh
# itself does not free everything at exit).
asan: deps build/asan/cuckoo.so $(ATESTS)
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
	  tclsh tests/run.tcl --ext ./build/asan/cuckoo.so --sanitized
	ASAN_OPTIONS=detect_leaks=1 tclsh tests/run.tcl --sanitized --only-c \
	  --ext ./build/asan/cuckoo.so $(ATESTS)

demo: build-deps cuckoo.so
	sqlite3 :memory: < sql/demo.sql

bench: deps cuckoo.so
	$(MAKE) -C tests/bench run

# The figures of docs/benchmarks.md (gnuplot: a bench-only need).
figure: deps
	$(MAKE) -C tests/bench figure

# libFuzzer targets (clang): `fuzz` runs each for FUZZ_SECONDS,
# `test-fuzz` for FUZZ_SHORT (part of `make test`).
fuzz: deps
	$(MAKE) -C tests/fuzz run

test-fuzz: deps
	$(MAKE) -C tests/fuzz short

# libcuckoo.a holds one object: the extension's files linked together
# (ld -r) with every hidden symbol made local, so that only
# sqlite3_cuckoo_init is left for a program's link to see and no internal
# name (cf_*, cksql_*, ckst_*) can clash with the program's own.
static: libcuckoo.a

libcuckoo.a: $(EXTSRC) $(EXTHDR)
	@CC="$(CC)" sh dist/check-headers.sh
	@rm -rf build/static && mkdir -p build/static
	cd build/static && $(CC) $(CFLAGS) $(WARN) -fvisibility=hidden \
	  -DSQLITE_CORE -c $(addprefix ../../,$(EXTSRC))
	$(LD) -r -o build/static/libcuckoo.o $(addprefix build/static/,$(notdir $(EXTSRC:.c=.o)))
	objcopy --localize-hidden build/static/libcuckoo.o
	rm -f $@ && ar rcs $@ build/static/libcuckoo.o

clean:
	rm -rf build cuckoo.so libcuckoo.a cuckoo-*.tar.gz
	[ ! -f tests/bench/Makefile ] || $(MAKE) -C tests/bench clean
