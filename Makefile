# cuckoo: a SQLite extension for cuckoo filters.
#
#   make          build ./cuckoo.so (load with .load ./cuckoo)
#   make demo     run sql/demo.sql in the sqlite3 shell
#   make test     the whole test suite; last line "N passed, N failed"
#   make asan     the suite again under -fsanitize=address,undefined
#   make bench    benchmarks (tests/bench), printed as tables
#   make static   libcuckoo.a built with -DSQLITE_CORE for static linking
#   make fuzz     libFuzzer targets in tests/fuzz (test-fuzz: a short run)
#
# `make demo` and `make test` first install missing Debian packages
# (the `deps` target checks with dpkg -s and only then runs apt-get).

CC      ?= gcc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror
EXTSRC  := $(wildcard ext/*.c)
EXTHDR  := $(wildcard ext/*.h)
CORESRC := ext/cuckoo_filter.c
CTESTS  := $(patsubst tests/%.c,build/%,$(wildcard tests/*_test.c))
ATESTS  := $(patsubst tests/%.c,build/asan/%,$(wildcard tests/*_test.c))
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
            -fno-omit-frame-pointer
PKGS    := gcc make tcl libsqlite3-dev libsqlite3-tcl libxxhash-dev sqlite3 \
           clang libclang-rt-14-dev

.PHONY: all deps test asan demo bench static clean fuzz test-fuzz

all: cuckoo.so

cuckoo.so: $(EXTSRC) $(EXTHDR)
	$(CC) $(CFLAGS) $(WARN) -fPIC -shared -o $@ $(EXTSRC) -lm

deps:
	@missing=""; for p in $(PKGS); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build/%_test: tests/%_test.c $(EXTSRC) $(EXTHDR)
	@mkdir -p build
	$(CC) $(CFLAGS) $(WARN) -Iext -o $@ $< $(CORESRC) -lm

build/asan/%_test: tests/%_test.c $(EXTSRC) $(EXTHDR)
	@mkdir -p build/asan
	$(CC) -O1 -g $(SANFLAGS) $(WARN) -Iext -o $@ $< $(CORESRC) -lm

# C tests of the SQL layer (the out-of-memory sweep, the aggregates) link
# SQLite and the extension statically.
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
	$(CC) -O1 -g $(SANFLAGS) $(WARN) -fPIC -shared -o $@ $(EXTSRC) -lm

test: deps cuckoo.so $(CTESTS)
	tclsh tests/run.tcl --ext ./cuckoo.so $(CTESTS)

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

demo: deps cuckoo.so
	sqlite3 :memory: < sql/demo.sql

bench: deps cuckoo.so
	$(MAKE) -C tests/bench run

# libFuzzer targets (clang): `fuzz` runs each for a while, `test-fuzz`
# briefly (CI).
fuzz: deps
	$(MAKE) -C tests/fuzz run

test-fuzz: deps
	$(MAKE) -C tests/fuzz short

static: $(EXTSRC) $(EXTHDR)
	@mkdir -p build/static
	cd build/static && $(CC) $(CFLAGS) $(WARN) -DSQLITE_CORE -c \
	  $(addprefix ../../,$(EXTSRC))
	ar rcs libcuckoo.a build/static/*.o

clean:
	rm -rf build cuckoo.so libcuckoo.a
	[ ! -f tests/bench/Makefile ] || $(MAKE) -C tests/bench clean
