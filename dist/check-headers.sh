#!/bin/sh
# check-headers.sh: before the first compile, say which Debian package
# provides each header the build needs and the compiler ($CC) cannot find,
# instead of a bare "No such file or directory".
CC=${CC:-cc}
missing=""
for pair in sqlite3ext.h:libsqlite3-dev xxhash.h:libxxhash-dev; do
  h=${pair%%:*}
  pkg=${pair#*:}
  if ! printf '#include <%s>\n' "$h" | $CC ${CPPFLAGS:-} -E -x c - >/dev/null 2>&1
  then
    echo "cuckoo: $h not found; it comes with $pkg" >&2
    missing="$missing $pkg"
  fi
done
if [ -n "$missing" ]; then
  echo "cuckoo: install the build dependencies first, on Debian or Ubuntu:" >&2
  echo "    sudo apt-get install$missing" >&2
  echo "(or run 'make build-deps'; other systems: docs/install.md#building)" >&2
  exit 1
fi
