# mk/python.mk: the Python package of the extension (bindings/python).
#
#   make test-python  bindings/python installed with pip into a venv under
#                     build/pyvenv (the install block of docs/clients.md,
#                     Debian's python3, offline: --no-build-isolation; kept
#                     until the package's sources change) and from an
#                     sdist, then tested with the sqlite3 module, apsw and
#                     sqlite-utils (API and command line), every python
#                     block of README.md and docs/clients.md, and a Python
#                     without extension loading (tests/python/run.py;
#                     part of `make test`)

PYTHON_PKGS := python3 python3-pip python3-venv python3-setuptools \
               python3-apsw sqlite-utils gcc libsqlite3-dev libxxhash-dev

.PHONY: test-python

## test-python: the Python package in a venv, with sqlite3, apsw and sqlite-utils
test-python: cuckoo.so
	@sh tests/deps.sh $(PYTHON_PKGS)
	/usr/bin/python3 tests/python/run.py
