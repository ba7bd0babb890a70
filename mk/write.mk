# mk/write.mk: `make bench-write`, the write shapes applications use,
# through ./cuckoo.so against their alternatives in one table
# (tests/bench/write_bench.c: BEGIN ... COMMIT of ascending ints in
# rollback-journal and WAL modes, TEXT items, INSERT OR IGNORE against
# INSERT and against a TEXT PRIMARY KEY table; tests/bench/write_bench.py:
# executemany from Python's sqlite3).  `make bench` runs them too.
# BENCH_SCALE=N divides every size; BENCH_RUNS=N (1 to 15, default 3)
# sets how many runs of each side the medians take.

.PHONY: bench-write

## bench-write: the write shapes (transactions, WAL, TEXT, OR IGNORE, executemany), one table
bench-write: deps cuckoo.so
	$(MAKE) -C tests/bench write
