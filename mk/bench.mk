# mk/bench.mk: the benchmarks (tests/bench, docs/benchmarks.md).  None is
# part of `make test`: timings belong in docs, never in tests.
#
# BENCH_SCALE=N divides every size of tests/bench, for a quick run.
# `make bench-targets` is the fast paths against their natural
# alternatives in one table (tests/bench/target_bench.c: bulk INSERT vs a
# heap table, join and EXISTS probes vs a WITHOUT ROWID primary key, IN
# lists vs point lookups, the core's single-item lookup, cuckoo_contains
# per row vs abs()); `make bench` runs it too, with the other benchmarks.
# BENCH_ONLY=lookup runs only its two lookup measures (the core's
# single-item lookup, cuckoo_contains), BENCH_ONLY=bulk only the bulk loads.

.PHONY: bench bench-targets bench-probe bench-stream bench-before bench-targets-before \
        bench-tools figure

## bench: every benchmark of tests/bench, each printed as a table
bench: deps cuckoo.so
	$(MAKE) -C tests/bench run

## bench-targets: the fast paths against their natural alternatives, one table
bench-targets: deps cuckoo.so
	$(MAKE) -C tests/bench target

# Probing a filter stored in a table (tests/bench/probe_bench.c): today's
# scalar-subquery and join forms of cuckoo_contains and both shapes of
# cuckoo_contains_stored against the filter bound as a parameter, at 0.17,
# 1.75, 17.5 and 100 MB with 20,000 probe rows, then one probe per
# statement (docs/benchmarks.md#probing-a-stored-filter).
## bench-probe: probing a stored filter, every form against the bound filter
bench-probe: deps cuckoo.so
	$(MAKE) -C tests/bench probe

# De-duplicating a stream with one commit per batch
# (tests/bench/stream_bench.c): 5*10^6 random TEXT items in batches of
# 10^4, INSERT OR IGNORE, into a cuckoo table sized for them, one of the
# default capacity and a TEXT PRIMARY KEY table, in rollback-journal and
# WAL mode: time and bytes written per commit
# (docs/benchmarks.md#streaming-into-a-table).  About 8 minutes on an
# idle 2-core machine (25 on a loaded one); BENCH_SCALE=50 is a quick run.
# STREAM_BEFORE=<commit> runs each cuckoo table with ext/ of that commit
# and with the working tree in turn, STREAM_ROUNDS times (default 3).
## bench-stream: a stream of small commits into cuckoo tables and a TEXT PRIMARY KEY table
bench-stream: deps cuckoo.so
	$(MAKE) -C tests/bench stream

# The bulk load built from ext/ of another commit and from the working
# tree, run alternately in one session (tests/bench/before.sh,
# bulk_load.c): BEFORE, the commit to compare with (default main), and
# ROUNDS (default 3); about a minute and a half per round at 10^7 items.
BEFORE ?= main
ROUNDS ?= 3
## bench-before: the bulk load of BEFORE (default main) and of the working tree, alternated
bench-before: deps
	sh tests/bench/before.sh $(BEFORE) $(ROUNDS)

# The bench-targets table for cuckoo.so of BEFORE and of the working tree.
## bench-targets-before: the bench-targets table of BEFORE's cuckoo.so and this tree's, alternated
bench-targets-before: deps cuckoo.so
	$(MAKE) -C tests/bench ../../build/bench/target_bench
	sh tests/bench/targets_before.sh $(BEFORE) $(ROUNDS)

# Counting and emptying a table of BENCH_TOOLS_N items (docs/tools.md).
BENCH_TOOLS_N ?= 10000000
## bench-tools: counting and emptying a cuckoo table of BENCH_TOOLS_N items
bench-tools: cuckoo.so
	@sh tests/deps.sh tcl libsqlite3-tcl
	tclsh tests/tools/empty_bench.tcl ./cuckoo.so $(BENCH_TOOLS_N)

# The figures of docs/benchmarks.md (gnuplot: a bench-only need).
## figure: redraw the figures in docs/img (installs gnuplot-nox)
figure: deps
	$(MAKE) -C tests/bench figure
