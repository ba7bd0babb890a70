# mk/dqlite.mk: the extension on a dqlite cluster (contrib/dqlite).
#
#   make dqlite       build/cuckoo-node: a dqlite node with the extension
#                     linked in (libcuckoo.a), see contrib/dqlite/cuckoo_node.c
#   make test-dqlite  a 3-node cluster on 127.0.0.1: filters, a cuckoo table,
#                     the leader killed mid-transaction, a node's catch-up
#                     (contrib/dqlite/test.sh; part of `make test`)
#
# Both install their own packages: libdqlite-dev to build the node, the
# go-dqlite client shell (`dqlite`) to talk to the cluster.

DQLITE_PKGS := libdqlite-dev libsqlite3-dev pkg-config
DQLITE_TEST_PKGS := $(DQLITE_PKGS) go-dqlite sqlite3 python3

.PHONY: dqlite test-dqlite

## dqlite: build/cuckoo-node, a dqlite node with the extension linked in
dqlite:
	@sh tests/deps.sh $(DQLITE_PKGS)
	@$(MAKE) --no-print-directory static
	@mkdir -p build
	$(CC) $(CFLAGS) $(WARN) -Iext -o build/cuckoo-node \
	  contrib/dqlite/cuckoo_node.c libcuckoo.a \
	  $$(pkg-config --libs dqlite) -lsqlite3 -lpthread -lm

## test-dqlite: a 3-node dqlite cluster on 127.0.0.1 with filters and a cuckoo table
test-dqlite: dqlite cuckoo.so
	@sh tests/deps.sh $(DQLITE_TEST_PKGS)
	sh contrib/dqlite/test.sh build/cuckoo-node ./cuckoo.so
