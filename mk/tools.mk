# tools.mk: `make test-tools`, the tools people point at a database
# (sqlite-utils, the sqlite3 shell's .dump and .recover, VACUUM INTO,
# Python's backup API, dbstat) run against one holding filter columns and
# a grown cuckoo table (tests/tools/tools_test.py).  Part of `make test`.

TOOLS_PKGS := sqlite-utils sqlite3 python3 gcc

.PHONY: test-tools

test-tools: cuckoo.so
	@sh tests/deps.sh $(TOOLS_PKGS)
	@sh tests/tools/shell.sh
	/usr/bin/python3 tests/tools/tools_test.py --ext ./cuckoo.so \
	  --recover-shell build/tools-shell/sqlite3

TEST_PARTS += "$(MAKE) --no-print-directory test-tools"

# Counting and emptying a table of BENCH_TOOLS_N items (docs/tools.md).
BENCH_TOOLS_N ?= 10000000
.PHONY: bench-tools
bench-tools: cuckoo.so
	@sh tests/deps.sh tcl libsqlite3-tcl
	tclsh tests/tools/empty_bench.tcl ./cuckoo.so $(BENCH_TOOLS_N)
