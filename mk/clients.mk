# mk/clients.mk: the clients of docs/clients.md.
#
#   make test-clients  every snippet of docs/clients.md outside its Python
#                      and Node.js sections (the sqlite3 shell, Go with
#                      go-sqlite3, Tcl, C linked with libcuckoo.a, a
#                      renamed file, a database whose cuckoo table needs
#                      the extension), and the sh blocks of the README's
#                      "Using cuckoo from your language", each compared
#                      with the text block after it (tests/clients_test.sh;
#                      part of `make test`). Go builds offline, against
#                      Debian's golang-github-mattn-go-sqlite3-dev, with its
#                      cache in build/clients-cache.

CLIENTS_SNIPPET_PKGS := golang-go golang-github-mattn-go-sqlite3-dev tcl \
                        libsqlite3-tcl sqlite3 gcc libsqlite3-dev libxxhash-dev

.PHONY: test-clients clients-snippet-deps

## clients-snippet-deps: the Debian packages of test-clients (Go, Tcl, C)
clients-snippet-deps:
	@sh tests/deps.sh $(CLIENTS_SNIPPET_PKGS)

## test-clients: the snippets of docs/clients.md and the README in the shell, Go, Tcl, C
test-clients: clients-snippet-deps cuckoo.so libcuckoo.a
	@sh tests/clients_test.sh
