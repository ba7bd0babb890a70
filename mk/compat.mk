# mk/compat.mk: the SQLite version matrix and the cross-CPU builds.
#
#   make compat       the whole suite, the SQL C tests and the database
#                     travel test against every SQLite of
#                     tests/compat/versions (3.31.1 ... newest), each built
#                     from its amalgamation (npm packages, SHA-256 checked)
#                     under build/compat; one table and "N passed, N failed"
#   make test-compat  the same for the oldest and the newest version only,
#                     without the long model and crash C tests (part of
#                     make test)
#   make cross        the core and its tests cross-built for s390x (big
#                     endian) and aarch64, run under qemu-user: core_test
#                     with fewer operations, and filter BLOBs written on
#                     x86-64 read and written there and the other way round,
#                     byte-identical (part of make test)

COMPAT_PKGS := gcc make tcl tcl-dev libsqlite3-dev libsqlite3-tcl \
               libxxhash-dev
COMPAT_VERSIONS := $(shell awk '!/^\#/ && NF {print $$1}' tests/compat/versions)
COMPAT_OLDEST := $(firstword $(COMPAT_VERSIONS))
COMPAT_NEWEST := $(lastword $(COMPAT_VERSIONS))
CROSS_PKGS  := gcc-s390x-linux-gnu gcc-aarch64-linux-gnu libc6-dev-s390x-cross \
               libc6-dev-arm64-cross qemu-user libxxhash-dev
CROSS_ARCHES := s390x aarch64
# core_test's loops divided by this under the emulator
CROSS_SCALE ?= 20

.PHONY: compat test-compat compat-deps cross

## compat-deps: the Debian packages of compat and test-compat (npm when missing)
compat-deps:
	@sh tests/deps.sh $(COMPAT_PKGS)
	@command -v npm >/dev/null || sh tests/deps.sh npm

## compat: the suite against every SQLite of tests/compat/versions
compat: compat-deps cuckoo.so
	sh tests/compat/run.sh $(COMPAT_VERSIONS)

## test-compat: the same for the oldest and newest SQLite, short C tests (part of make test)
test-compat: compat-deps cuckoo.so
	sh tests/compat/run.sh --quick $(COMPAT_OLDEST) $(COMPAT_NEWEST)

# The cross compilers must not see the host's headers: xxhash.h (header
# only) is copied into a directory of its own.
build/cross/inc/xxhash.h: /usr/include/xxhash.h
	@mkdir -p build/cross/inc
	cp $< $@

build/cross/%/core_test: tests/core_test.c $(EXTSRC) $(EXTHDR) build/cross/inc/xxhash.h
	@mkdir -p $(@D)
	$*-linux-gnu-gcc $(CFLAGS) $(WARN) -static -Ibuild/cross/inc -Iext \
	  -o $@ $< $(CORESRC) -lm

build/cross/%/blob_tool: tests/cross/blob_tool.c $(EXTSRC) $(EXTHDR) build/cross/inc/xxhash.h
	@mkdir -p $(@D)
	$*-linux-gnu-gcc $(CFLAGS) $(WARN) -static -Ibuild/cross/inc -Iext \
	  -o $@ $< $(CORESRC) -lm

build/cross/blob_tool: tests/cross/blob_tool.c $(EXTSRC) $(EXTHDR)
	@mkdir -p build/cross
	$(CC) $(CFLAGS) $(WARN) -Iext -o $@ $< $(CORESRC) -lm

## cross: core_test and BLOB round trips on s390x and aarch64 under qemu (part of make test)
cross:
	@sh tests/deps.sh $(CROSS_PKGS)
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) build/cross/blob_tool \
	  $(foreach a,$(CROSS_ARCHES),build/cross/$(a)/core_test build/cross/$(a)/blob_tool)
	@sh tests/cross/run.sh $(CROSS_SCALE) $(CROSS_ARCHES)
