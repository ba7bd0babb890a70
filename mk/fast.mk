# fast.mk: `make bench-targets`, the fast paths against their natural
# alternatives in one table (tests/bench/target_bench.c: bulk INSERT vs a
# heap table, join and EXISTS probes vs a WITHOUT ROWID primary key, IN
# lists vs point lookups, the core's single-item lookup, cuckoo_contains
# per row vs abs()).  `make bench` runs it too, with the other benchmarks.
# BENCH_SCALE=N divides every size, for a quick run; BENCH_ONLY=lookup runs
# only the two lookup measures (the core's single-item lookup, cuckoo_contains).

.PHONY: bench-targets

bench-targets: deps cuckoo.so
	$(MAKE) -C tests/bench target
