# mk/node.mk: the Node.js package, bindings/node (npm name sqlite-cuckoo).
#
#   make test-node  the package installed from the repository's folder and
#                   from its `npm pack` tarball into scratch projects under
#                   build/node-test, each built from source at install,
#                   then tests/node/client_test.js with better-sqlite3@12
#                   and sqlite3@5.1.7 from the npm registry (built from
#                   source once, cached in build/node-clients, shared with
#                   test-install), and the ```js blocks of docs/clients.md
#                   and README.md (tests/node/run.sh; part of `make test`)
#
# Debian's nodejs package has npm as a separate package; NodeSource's
# nodejs brings its own npm (and conflicts with Debian's): npm is
# installed only when missing.  g++, make and python3 build the clients.

NODE_PKGS := nodejs gcc g++ make python3 libsqlite3-dev libxxhash-dev

.PHONY: test-node

## test-node: the Node.js package from its folder and its tarball, with two npm clients
test-node: cuckoo.so
	@sh tests/deps.sh $(NODE_PKGS)
	@command -v npm >/dev/null || sh tests/deps.sh npm
	sh tests/node/run.sh
