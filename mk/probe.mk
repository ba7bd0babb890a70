# probe.mk: `make bench-probe`, probing a filter stored in a table
# (tests/bench/probe_bench.c): today's scalar-subquery and join forms of
# cuckoo_contains and both shapes of cuckoo_contains_stored against the
# filter bound as a parameter, at 0.17, 1.75, 17.5 and 100 MB, 20,000
# probe rows; then one probe per statement.  `make bench` runs it too,
# with the other benchmarks.  BENCH_SCALE=N divides the filter sizes.

.PHONY: bench-probe

bench-probe: deps cuckoo.so
	$(MAKE) -C tests/bench probe
