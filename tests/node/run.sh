#!/bin/sh
# run.sh: the Node package bindings/node (sqlite-cuckoo) installed the two
# ways a user installs it, with real clients from the npm registry
# (make test-node).
#
#   sh tests/node/run.sh
#
# 1. The clients: better-sqlite3@12 and sqlite3@5.1.7, built from source
#    (npm_config_nodedir=/usr: Debian's Node headers) once into
#    build/node-clients, the cache tests/install_test.sh uses too.
# 2. `npm install <repository>/bindings/node` into a scratch project
#    (npm links the folder; the install script builds there), and `npm
#    pack` (prepack bundles the amalgamation, postpack removes it again)
#    then `npm install sqlite-cuckoo-VERSION.tgz` into another: the
#    tarball's files are listed, and it builds without the repository.
#    Each scratch project is a copy of build/node-clients's, so the
#    clients and the package resolve as in any project.
# 3. tests/node/client_test.js in each project: filters, a join, the
#    virtual table in transactions, error messages, load()'s forms.
# 4. The ```js blocks of docs/clients.md, README.md and bindings/node/README.md
#    (tests/node/snippets_test.js), saved in the tarball's project and run
#    in the repository's root (where `make` leaves ./cuckoo.so).
set -u
unset NODE_PATH
root=$(pwd)
work=$root/build/node-test
nc=$root/build/node-clients
. "$root/tests/tally.sh"
# count CMD...: runs a node test printing ok:/FAILED: lines; a non-zero
# exit without a FAILED line counts one failure.
count() {
  "$@" > "$work/out.txt" 2>&1
  rc=$?
  cat "$work/out.txt"
  p=$(grep -c '^ok: ' "$work/out.txt")
  f=$(grep -c '^FAILED: ' "$work/out.txt")
  pass=$((pass + p))
  fail=$((fail + f))
  if [ $rc != 0 ] && [ "$f" = 0 ]; then bad "$* exited $rc"; fi
}
npmi() { npm install --no-audit --no-fund --loglevel=error "$@"; }
version=$(sed -n 's/^#define CUCKOO_VERSION "\(.*\)"$/\1/p' ext/cuckoo.h)
pkgversion=$(node -p 'require("./bindings/node/package.json").version')
check "bindings/node/package.json version $pkgversion is CUCKOO_VERSION $version" \
  [ "$pkgversion" = "$version" ]
rm -rf "$work" && mkdir -p "$work"

# 1. The clients, cached (a cold build takes a minute or two each).
mkdir -p "$nc"
[ -f "$nc/package.json" ] || echo '{"private": true}' > "$nc/package.json"
if [ ! -d "$nc/node_modules/better-sqlite3" ]; then
  (cd "$nc" && npm_config_nodedir=/usr npmi better-sqlite3@12) > "$work/clients.log" 2>&1
fi
if [ ! -d "$nc/node_modules/sqlite3" ]; then
  (cd "$nc" && npm_config_nodedir=/usr npm_config_build_from_source=true \
     npmi sqlite3@5.1.7) >> "$work/clients.log" 2>&1
fi
clients=$(cd "$nc" && node -p 'require("better-sqlite3/package.json").version + " " +
  require("sqlite3/package.json").version' 2>&1)
case $clients in
  12.*" 5.1.7") ok "clients: better-sqlite3 and sqlite3 $clients" ;;
  *) bad "clients: better-sqlite3@12 and sqlite3@5.1.7 in $nc: $clients"
     tail -20 "$work/clients.log" 2>/dev/null ;;
esac

# 2. The two installs.
# A scratch project: a copy of the clients' project (timestamps kept, so
# npm sees them installed and builds nothing again), to which the test
# adds sqlite-cuckoo: a project with better-sqlite3, sqlite3 and the
# package, resolved by node as in any project (no NODE_PATH).
project() {
  mkdir -p "$work/$1" && cp -a "$nc/package.json" "$nc/node_modules" "$work/$1/" &&
    if [ -f "$nc/package-lock.json" ]; then cp -a "$nc/package-lock.json" "$work/$1/"; fi
}
project path
rm -rf bindings/node/build
check "npm install <repository>/bindings/node" \
  sh -c "cd '$work/path' && npm install --no-audit --no-fund '$root/bindings/node' > install.log 2>&1"
check "installed as a link to the folder" [ -L "$work/path/node_modules/sqlite-cuckoo" ]
check "built in the folder: bindings/node/build/cuckoo.so" [ -f bindings/node/build/cuckoo.so ]

check "npm pack" sh -c "cd bindings/node && npm pack --pack-destination '$work' > '$work/pack.log' 2>&1"
tgz=$work/sqlite-cuckoo-$version.tgz
got=$(tar -tzf "$tgz" 2>&1 | sort | tr '\n' ' ')
want="package/LICENSE package/README.md package/index.d.ts package/index.js package/install.js package/package.json package/src/cuckoo.c package/src/cuckoo.h "
check "tarball files: $got" [ "$got" = "$want" ]
check "the bundled cuckoo.c is dist/amalgamate.sh's" \
  sh -c "tar -xOzf '$tgz' package/src/cuckoo.c | cmp -s - bindings/node/build/cuckoo.c"
check "postpack removed the bundled files" [ ! -e bindings/node/src -a ! -e bindings/node/LICENSE ]
leak=$(git status --porcelain --untracked-files=all bindings/node 2>/dev/null |
  grep -E 'bindings/node/(build/|src/|LICENSE|.*\.tgz)')
check "git ignores the generated files of bindings/node [$leak]" [ -z "$leak" ]
project tarball
check "npm install sqlite-cuckoo-$version.tgz" \
  sh -c "cd '$work/tarball' && npm install --foreground-scripts --no-audit --no-fund '$tgz' > install.log 2>&1"
check "the tarball built from its bundled source" \
  grep -q "sqlite-cuckoo: built $work/tarball/node_modules/sqlite-cuckoo/build/cuckoo.so from the bundled src/cuckoo.c (cuckoo $version)" \
  "$work/tarball/install.log"

# A failed build says why, leaves no library, and load() then says it
# was not built (client_test.js); the versions must agree.
pk=$work/tarball/node_modules/sqlite-cuckoo
rm -rf "$work/broken" && cp -r "$pk" "$work/broken" && rm -rf "$work/broken/build"
out=$(cd "$work/broken" && CC=no-such-cc node install.js 2>&1)
rc=$?
case $out in *'cannot run the C compiler "no-such-cc"'*) said=1 ;; *) said=0 ;; esac
check "no compiler: exit $rc, [$out]" [ $rc != 0 -a $said = 1 ]
check "no compiler: no library left" [ ! -e "$work/broken/build/cuckoo.so" ]
sed -i "s/\"version\": \"$version\"/\"version\": \"9.9.9\"/" "$work/broken/package.json"
out=$(cd "$work/broken" && node install.js 2>&1)
rc=$?
check "a version other than the source's: exit $rc, [$out]" [ $rc != 0 -a "$out" = \
  "sqlite-cuckoo: package.json says version 9.9.9 but src/cuckoo.c is cuckoo $version; ext/cuckoo.h (CUCKOO_VERSION) is the one source of the version: update package.json" ]

# 3. The client test, on each install.
export CUCKOO_VERSION=$version
for p in path tarball; do
  cp tests/node/client_test.js "$work/$p/"
done
count sh -c "cd '$work/path' && node client_test.js path '$root/bindings/node/build'"
count sh -c "cd '$work/tarball' && node client_test.js tarball node_modules/sqlite-cuckoo/build"

# 4. The snippets.
count node tests/node/snippets_test.js "$work/tarball/snippets" docs/clients.md README.md \
    bindings/node/README.md

finish
