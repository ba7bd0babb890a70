#!/bin/sh
# install_test.sh: make install and make uninstall (make test-install).
#
#   sh tests/install_test.sh
#
# 1. Staged installs (DESTDIR): the default PREFIX puts exactly four files
#    where docs/install.md says, with a cuckoo.pc naming them; PREFIX=/opt/x
#    keeps all four under /opt/x; uninstall removes every file.
# 2. A real install (root, or sudo): `.load cuckoo` by bare name, from a
#    directory without cuckoo.so, in the sqlite3 shell, Python's sqlite3
#    module and Node (better-sqlite3 from the npm registry, cached in
#    build/node-clients); a C program built with `pkg-config --cflags --libs
#    cuckoo` against the installed libcuckoo.a; then uninstall leaves the
#    directories exactly as they were before (every path and file listed).
set -u
root=$(pwd)
work=$root/build/install-test
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAILED: $1"; }
check() { # check NAME CMD...: passes when CMD exits 0
  name=$1; shift
  if "$@"; then ok "$name"; else bad "$name"; fi
}
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
MAKE="make --no-print-directory -s"
ma=$(gcc -print-multiarch)
sys=/usr/lib/$ma
version=$(sed -n 's/^#define CUCKOO_VERSION "\(.*\)"$/\1/p' ext/cuckoo.h)
rm -rf "$work" && mkdir -p "$work/elsewhere"

# 1. Staged
st=$work/stage
$MAKE install DESTDIR="$st" >/dev/null
got=$(cd "$st" && find . -type f | sort | tr '\n' ' ')
want="./usr/lib/$ma/cuckoo.so ./usr/local/include/cuckoo.h ./usr/local/lib/libcuckoo.a ./usr/local/lib/pkgconfig/cuckoo.pc "
check "staged files: $got" [ "$got" = "$want" ]
check "installed cuckoo.so is the build's" cmp -s cuckoo.so "$st$sys/cuckoo.so"
pc=$st/usr/local/lib/pkgconfig/cuckoo.pc
check "cuckoo.pc version $version" grep -qx "Version: $version" "$pc"
check "cuckoo.pc names the extension directory" grep -qx "extdir=$sys" "$pc"
check "cuckoo.pc libs" grep -qx 'Libs: -L${libdir} -lcuckoo -lm' "$pc"
$MAKE uninstall DESTDIR="$st" >/dev/null
left=$(find "$st" -type f | wc -l)
check "staged uninstall leaves no file ($left)" [ "$left" = 0 ]
check "staged uninstall removes the pkgconfig directory it made" \
  [ ! -d "$st/usr/local/lib/pkgconfig" ]

st=$work/stage-opt
$MAKE install DESTDIR="$st" PREFIX=/opt/cuckoo >/dev/null
got=$(cd "$st" && find . -type f | sort | tr '\n' ' ')
want="./opt/cuckoo/include/cuckoo.h ./opt/cuckoo/lib/cuckoo.so ./opt/cuckoo/lib/libcuckoo.a ./opt/cuckoo/lib/pkgconfig/cuckoo.pc "
check "PREFIX=/opt/cuckoo files: $got" [ "$got" = "$want" ]
$MAKE uninstall DESTDIR="$st" PREFIX=/opt/cuckoo >/dev/null
check "PREFIX=/opt/cuckoo uninstall" [ "$(find "$st" -type f | wc -l)" = 0 ]

# 2. For real
snapshot() {
  for d in /usr/local "$sys"; do find "$d" -maxdepth 3 2>/dev/null; done | sort
}
if [ -e "$sys/cuckoo.so" ] || [ -e /usr/local/lib/libcuckoo.a ]; then
  bad "cuckoo is already installed on this machine; not touching it"
  echo "$pass passed, $fail failed"
  exit 1
fi
snapshot > "$work/before"
$SUDO $MAKE install >/dev/null
check "sudo make install" [ -f "$sys/cuckoo.so" ]

cd "$work/elsewhere"
out=$(sqlite3 :memory: '.load cuckoo' 'SELECT cuckoo_version()' 2>&1)
check "sqlite3 shell: .load cuckoo -> $out" [ "$out" = "$version" ]
out=$(/usr/bin/python3 -c '
import sqlite3
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension("cuckoo")
print(con.execute("SELECT cuckoo_contains(cuckoo_add(cuckoo_new(10), 1), 1)").fetchone()[0])
' 2>&1)
check "python3 sqlite3: load_extension(\"cuckoo\") -> $out" [ "$out" = 1 ]

nc=$root/build/node-clients
if [ ! -d "$nc/node_modules/better-sqlite3" ]; then
  mkdir -p "$nc"
  [ -f "$nc/package.json" ] || echo '{"private": true}' > "$nc/package.json"
  (cd "$nc" && npm_config_nodedir=/usr npm install --no-audit --no-fund \
    better-sqlite3@12 >/dev/null 2>&1)
fi
out=$(NODE_PATH=$nc/node_modules node -e '
const Database = require("better-sqlite3");
const db = new Database(":memory:");
db.loadExtension("cuckoo");
console.log(db.prepare("SELECT cuckoo_version() AS v").get().v);
' 2>&1)
check "node better-sqlite3: loadExtension(\"cuckoo\") -> $out" [ "$out" = "$version" ]

cat > app.c <<'C'
#include <stdio.h>
#include <sqlite3.h>
#include <cuckoo.h>
int main(void) {
  sqlite3 *db;
  sqlite3_stmt *st;
  int rc;
  sqlite3_auto_extension((void (*)(void))sqlite3_cuckoo_init);
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 1;
  rc = sqlite3_prepare_v2(db, "SELECT cuckoo_version()", -1, &st, 0);
  if (rc != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) return 1;
  printf("%s %s\n", sqlite3_column_text(st, 0), CUCKOO_VERSION);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return 0;
}
C
flags=$(pkg-config --cflags --libs cuckoo 2>&1)
check "pkg-config --cflags --libs cuckoo: $flags" \
  cc -o app app.c $flags
out=$(./app 2>&1)
check "program linked with the installed libcuckoo.a: $out" \
  [ "$out" = "$version $version" ]
cd "$root"

$SUDO $MAKE uninstall >/dev/null
snapshot > "$work/after"
check "uninstall leaves /usr/local and $sys as they were" \
  cmp -s "$work/before" "$work/after"
diff "$work/before" "$work/after" | head -5
out=$(cd "$work/elsewhere" && sqlite3 :memory: '.load cuckoo' 2>&1)
check "after uninstall .load cuckoo fails" [ -n "$out" ]

echo "$pass passed, $fail failed"
[ $fail = 0 ]
