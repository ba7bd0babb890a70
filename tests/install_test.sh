#!/bin/sh
# install_test.sh: make install and make uninstall (make test-install).
#
#   sh tests/install_test.sh
#
# 1. Staged installs (DESTDIR): the default PREFIX puts exactly four files
#    where docs/install.md says, with a cuckoo.pc naming them; PREFIX=/opt/x
#    keeps all four under /opt/x; uninstall removes every file.
# 2. A real install (root, or sudo), with the snippets of docs/install.md:
#    directory without cuckoo.so, in the sqlite3 shell, Python's sqlite3
#    module and Node (better-sqlite3 from the npm registry, cached in
#    build/node-clients); a C program built with `pkg-config --cflags --libs
#    cuckoo` against the installed libcuckoo.a; then uninstall leaves the
#    directories exactly as they were before (every path and file listed).
set -u
root=$(pwd)
work=$root/build/install-test
. "$root/tests/tally.sh"
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

# 2. For real, with the snippets of docs/install.md (sh block N is
# `doc sh N`; `sudo ` is dropped when root; a ```text block right after a
# snippet is its expected output, compared with `expect`).
doc() { python3 "$root/tests/snippets.py" "$root/docs/install.md" "$1" --block "$2" |
          if [ -z "$SUDO" ]; then sed 's/^sudo //'; else cat; fi; }
after() { python3 "$root/tests/snippets.py" "$root/docs/install.md" "$1" \
            --text-after "$2"; }
expect() { # expect NAME LANG N OUTPUT: OUTPUT is the doc's text block after it
  want=$(cd "$root" && after "$2" "$3")
  check "$1: got [$4], docs say [$want]" [ -n "$want" -a "$4" = "$want" ]
}

snapshot() {
  for d in /usr/local "$sys"; do find "$d" -maxdepth 3 2>/dev/null; done | sort
}
if [ -e "$sys/cuckoo.so" ] || [ -e /usr/local/lib/libcuckoo.a ]; then
  bad "cuckoo is already installed on this machine; not touching it"
  echo "$pass passed, $fail failed"
  exit 1
fi
snapshot > "$work/before"
check "docs: build (sh 0)" sh -c "$(doc sh 0)" >/dev/null
readme=$(python3 tests/snippets.py README.md sh --block 1)
check "README's install block is docs/install.md's (sh 1)" \
  [ "$readme" = "$(python3 tests/snippets.py docs/install.md sh --block 1)" ]
check "docs: install (sh 1)" sh -c "$(doc sh 1)" >/dev/null
check "installed: $sys/cuckoo.so" [ -f "$sys/cuckoo.so" ]

cd "$work/elsewhere"
expect "docs: sqlite3 shell, bare name (sh 2)" sh 2 "$(sh -c "$(doc sh 2)" 2>&1)"
out=$(doc python 0 | /usr/bin/python3 - 2>&1)
want=$(doc python 0 | sed -n 's/.*# \(.*\)$/\1/p' | tail -1)
check "docs: python sqlite3, bare name: [$out] = [$want]" [ "$out" = "$want" ]

nc=$root/build/node-clients
if [ ! -d "$nc/node_modules/better-sqlite3" ]; then
  mkdir -p "$nc"
  [ -f "$nc/package.json" ] || echo '{"private": true}' > "$nc/package.json"
  (cd "$nc" && npm_config_nodedir=/usr npm install --no-audit --no-fund \
    better-sqlite3@12 >/dev/null 2>&1)
fi
out=$(doc js 0 | NODE_PATH=$nc/node_modules node - 2>&1)
want=$(doc js 0 | sed -n 's/.*\/\/ \(.*\)$/\1/p' | tail -1)
check "docs: node better-sqlite3, bare name: [$out] = [$want]" [ "$out" = "$want" ]

doc c 0 > app.c
expect "docs: a program built with pkg-config (sh 5)" sh 5 "$(sh -c "$(doc sh 5)" 2>&1)"
mkdir -p "$work/home"
expect "docs: private install, no root (sh 3)" sh 3 \
  "$(cd "$root" && HOME=$work/home MAKEFLAGS=s sh -c "$(doc sh 3)" 2>&1)"
check "private install uninstalled" [ "$(find "$work/home" -type f | wc -l)" = 0 ]
cd "$root"

check "docs: uninstall (sh 4)" sh -c "$(doc sh 4)" >/dev/null
snapshot > "$work/after"
check "uninstall leaves /usr/local and $sys as they were" \
  cmp -s "$work/before" "$work/after"
diff "$work/before" "$work/after" | head -5
out=$(cd "$work/elsewhere" && sqlite3 :memory: '.load cuckoo' 2>&1)
check "after uninstall .load cuckoo fails" [ -n "$out" ]

# The other snippets: make dist, the one-command build, the exports, a
# renamed file.
check "docs: make dist (sh 6)" sh -c "$(doc sh 6)" >/dev/null
rm -rf "$work/tar" && mkdir -p "$work/tar" && tar -C "$work/tar" -xzf cuckoo-$version.tar.gz
check "docs: one-command build (sh 7)" sh -c "cd $work/tar/cuckoo-$version && $(doc sh 7)"
out=$(cd "$work/tar/cuckoo-$version" && sh -c "$(doc sh 8)" | sed 's/^[0-9a-f]* //')
want=$(after sh 8 | sed 's/^[0-9a-f]* //')
check "docs: exports of the one-command build: [$out] = [$want]" [ -n "$want" -a "$out" = "$want" ]
out=$(sh -c "$(doc sh 8)" | sed 's/^[0-9a-f]* //')
check "docs: exports of make's build: [$out] = [$want]" [ "$out" = "$want" ]
mkdir -p "$work/renamed" && cp cuckoo.so "$work/renamed/"
expect "docs: a renamed file (sh 9)" sh 9 "$(cd "$work/renamed" && sh -c "$(doc sh 9)" 2>&1)"
# (the blocks marked `sh windows` are make test-windows's)
n=$(python3 tests/snippets.py docs/install.md sh | python3 -c '
import json, sys
print(sum("windows" not in b["flags"] for b in json.load(sys.stdin)))')
check "every sh snippet of docs/install.md run (10 of $n)" [ "$n" = 10 ]

finish
