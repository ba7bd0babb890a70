#!/bin/sh
# run.sh: the WebAssembly builds against the native extension (make
# test-wasm; part of `make test`).  Part of cuckoo (MIT License, see
# LICENSE).
#
#   sh tests/wasm/run.sh            (after make wasm and make cuckoo.so)
#
# 1. tests/wasm/native.py: what ./cuckoo.so says (Debian's python3 and
#    its SQLite) about the SQL cases, filters, malformed BLOBs and a grown
#    cuckoo table, into build/wasm-test/native.json and native.db.
# 2. `npm pack` of bindings/wasm, its files listed, installed into a
#    scratch project by npm with a PATH that holds node and npm only (no
#    C compiler, no python): the package needs none.
# 3. tests/wasm/node_test.mjs in that project, with the same PATH: both
#    modules, every value and byte compared with the native ones
#    (tests/wasm/cases.mjs); the database it exported is then read by the
#    native extension (native.py --check).
# 4. The ```mjs and ```html blocks of the docs, in Node
#    (tests/wasm/snippets.mjs).
# 5. Headless Chromium (tests/wasm/browser.sh) loads tests/wasm/page.html
#    from a server on 127.0.0.1 over the project: the cases of 3, then the
#    ```html blocks; the database it exported is read natively.
# Prints ok:/FAILED: lines and "N passed, N failed".
set -u
unset NODE_PATH
root=$(pwd)
work=$root/build/wasm-test
. "$root/tests/tally.sh"
# count CMD...: runs a test printing ok:/FAILED: lines; a non-zero exit
# without a FAILED line counts one failure.
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
rm -rf "$work" && mkdir -p "$work"
start=$(date +%s)

# 1. The native answers.
check "native.py: the native extension's answers" \
  /usr/bin/python3 tests/wasm/native.py ./cuckoo.so "$work/native.json" "$work/native.db"

# 2. The package, packed and installed with no compiler on PATH.
version=$(sed -n 's/^#define CUCKOO_VERSION "\(.*\)"$/\1/p' ext/cuckoo.h)
pkgversion=$(node -p 'require("./bindings/wasm/package.json").version')
check "bindings/wasm/package.json version $pkgversion is CUCKOO_VERSION $version" \
  [ "$pkgversion" = "$version" ]
check "npm pack" sh -c "cd bindings/wasm && npm pack --pack-destination '$work' > '$work/pack.log' 2>&1"
tgz=$work/sqlite-cuckoo-wasm-$version.tgz
got=$(tar -tzf "$tgz" 2>&1 | sort | tr '\n' ' ')
want="package/README.md package/cuckoo-filter.wasm package/cuckoo-sqlite.wasm package/filter.d.ts package/filter.js package/load.js package/package.json package/sqlite.d.ts package/sqlite.js "
check "tarball files: $got" [ "$got" = "$want" ]
for f in cuckoo-sqlite.wasm cuckoo-filter.wasm; do
  check "the tarball's $f is make wasm's" \
    sh -c "tar -xOzf '$tgz' package/$f | cmp -s - bindings/wasm/$f"
done
mkdir -p "$work/bin" "$work/project"
ln -s "$(command -v node)" "$work/bin/node"
ln -s "$(command -v npm)" "$work/bin/npm"
nocc="PATH=$work/bin"
check "no C compiler on the test's PATH" \
  sh -c "! env $nocc /bin/sh -c 'command -v cc || command -v gcc || command -v clang || command -v emcc || command -v python3'"
echo '{"private": true, "type": "module"}' > "$work/project/package.json"
check "npm install sqlite-cuckoo-wasm-$version.tgz (no compiler, no network)" \
  sh -c "cd '$work/project' && env $nocc npm install --offline --no-audit --no-fund '$tgz' > install.log 2>&1"

# 3. Node.
cp tests/wasm/node_test.mjs tests/wasm/cases.mjs "$work/project/"
count sh -c "cd '$work/project' && env $nocc node node_test.mjs '$work/native.json' '$work/node.db'"
cp "$work/out.txt" "$work/node.txt"
count /usr/bin/python3 tests/wasm/native.py --check ./cuckoo.so "$work/native.json" "$work/node.db"

# 4. The snippets of the docs, in Node.
cp cuckoo.so "$work/project/"
count node tests/wasm/snippets.mjs "$root" "$work/project" docs/clients.md README.md \
  docs/install.md bindings/wasm/README.md

# 5. Chromium.
cp tests/wasm/page.html tests/wasm/page.mjs "$work/native.json" "$work/project/"
chromium --version
if sh tests/wasm/browser.sh "$work/project" page.html "$work/browser" 300; then
  count cat "$work/browser/chromium.txt"
  count /usr/bin/python3 tests/wasm/native.py --check ./cuckoo.so "$work/native.json" \
    "$work/browser/chromium.db"
else
  [ -f "$work/browser/chromium.txt" ] && count cat "$work/browser/chromium.txt"
  bad "chromium: the page did not report (tests/wasm/browser.sh)"
fi
n_node=$(grep -cE '^(ok|FAILED): node: ' "$work/node.txt")
n_chromium=$(grep -E '^(ok|FAILED): chromium: ' "$work/browser/chromium.txt" 2>/dev/null |
  grep -cv 'html block')
check "chromium ran the $n_node cases node ran ($n_chromium)" [ "$n_chromium" = "$n_node" ]
echo "test-wasm: $(($(date +%s) - start)) s"
finish
