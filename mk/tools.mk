# mk/tools.mk: `make test-tools`, the tools people point at a database
# (sqlite-utils, the sqlite3 shell's .dump and .recover, VACUUM INTO,
# Python's backup API, dbstat) run against one holding filter columns and
# a grown cuckoo table (tests/tools/tools_test.py).  Part of `make test`.
# Its benchmark, `make bench-tools`, is in mk/bench.mk.

TOOLS_PKGS := sqlite-utils sqlite3 python3 gcc

.PHONY: test-tools

## test-tools: sqlite-utils, .dump, .recover, VACUUM INTO, backup, dbstat on cuckoo tables
test-tools: cuckoo.so
	@sh tests/deps.sh $(TOOLS_PKGS)
	@sh tests/tools/shell.sh
	/usr/bin/python3 tests/tools/tools_test.py --ext ./cuckoo.so \
	  --recover-shell build/tools-shell/sqlite3
