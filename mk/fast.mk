# fast.mk: `make bench-targets`, the fast paths against their natural
# alternatives in one table (tests/bench/target_bench.c: bulk INSERT vs a
# heap table, join and EXISTS probes vs a WITHOUT ROWID primary key, IN
# lists vs point lookups, the core's single-item lookup, cuckoo_contains
# per row vs abs()).  `make bench` runs it too, with the other benchmarks.
# BENCH_SCALE=N divides every size, for a quick run; BENCH_ONLY=lookup runs
# only the two lookup measures (the core's single-item lookup, cuckoo_contains),
# BENCH_ONLY=bulk only the bulk loads.

.PHONY: bench-targets bench-before

bench-targets: deps cuckoo.so
	$(MAKE) -C tests/bench target

# The bulk load against the code of an older commit, built from git and
# run alternately in one session (tests/bench/before.sh, bulk_load.c):
# BEFORE (default 7dbac33, main when the fast-core issue was filed) and
# ROUNDS (default 3); about a minute and a half per round at 10^7 items.
BEFORE ?= 7dbac33
ROUNDS ?= 3
bench-before: deps
	sh tests/bench/before.sh $(BEFORE) $(ROUNDS)
