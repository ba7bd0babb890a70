#!/bin/sh
# dist_test.sh: the release tarball as a user gets it (make test-dist).
#
#   sh tests/dist_test.sh cuckoo-VERSION.tar.gz ./cuckoo.so
#
# Unpacks the tarball into build/dist-test and checks: the files it holds
# (cuckoo.dll a 64-bit Windows DLL exporting only the entry point);
# the one build command of its README (run as written) gives a cuckoo.so
# exporting sqlite3_cuckoo_init and nothing else; the amalgamation also
# compiles with -Wall -Wextra -Werror under gcc and clang; the demo gives
# the same output as with the repository's own build; the same statements
# give byte-identical filter BLOBs with both builds; the README's C program
# (the amalgamation compiled in with -DSQLITE_CORE) builds and runs, with no
# name of the extension but the entry point left external.
set -u
tarball=$1
ref=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
root=$(pwd)
dir=build/dist-test
. "$root/tests/tally.sh"
not() { ! "$@"; }
check() { # check NAME CMD...: passes when CMD exits 0
  name=$1; shift
  if "$@"; then ok "$name"; else bad "$name"; fi
}

rm -rf $dir && mkdir -p $dir
tar -C $dir -xzf "$tarball" || { echo "0 passed, 1 failed"; exit 1; }
top=$(cd $dir/*/ && pwd)
snip() { python3 "$root/tests/snippets.py" "$top/README.md" "$1" --block "$2"; }

got=$(cd "$top" && ls | tr '\n' ' ')
check "contents ($got)" [ "$got" = "LICENSE README.md cuckoo.c cuckoo.dll cuckoo.h demo.sql " ]
# The Windows DLL (make test-windows runs it under wine): 64-bit, only the
# entry point exported.
fmt=$(x86_64-w64-mingw32-objdump -f "$top/cuckoo.dll" 2>&1 | sed -n 's/.*file format //p')
check "cuckoo.dll is a 64-bit Windows DLL ($fmt)" [ "$fmt" = pei-x86-64 ]
exports=$(x86_64-w64-mingw32-objdump -p "$top/cuckoo.dll" 2>/dev/null |
  sed -n '/Ordinal\/Name Pointer/,/^$/s/^[[:space:]]*\[ *[0-9]*\] //p' | tr '\n' ' ')
check "cuckoo.dll exports [$exports]" [ "$exports" = "sqlite3_cuckoo_init " ]

# The build command of the README, run as written.
cmd=$(snip sh 0)
echo "build: $cmd"
check "README build command" sh -c "cd '$top' && $cmd"
syms=$(nm -D --defined-only "$top/cuckoo.so" 2>/dev/null | awk '{print $3}' | tr '\n' ' ')
check "exports: [$syms]" [ "$syms" = "sqlite3_cuckoo_init " ]
for cc in gcc clang; do
  command -v $cc >/dev/null || { bad "$cc not installed"; continue; }
  check "$cc -Wall -Wextra -Werror" \
    $cc -O2 -Wall -Wextra -Werror -fPIC -shared "$top/cuckoo.c" \
      -o "$dir/cuckoo-$cc.so" -lm
done

# The demo, as the README says to run it, against both builds.
demo=$(snip sh 1)
(cd "$top" && sh -c "$demo") > $dir/demo-dist.out 2>&1
check "demo runs (amalgamation)" [ $? = 0 ]
mkdir -p $dir/ref && cp "$ref" $dir/ref/cuckoo.so && cp "$top/demo.sql" $dir/ref/
(cd $dir/ref && sh -c "$demo") > $dir/demo-ref.out 2>&1
check "demo output identical ($(wc -l < $dir/demo-dist.out) lines)" \
  cmp -s $dir/demo-dist.out $dir/demo-ref.out

# Byte-identical BLOBs from every path that writes one.
for b in dist ref; do
  if [ $b = dist ]; then d=$top; else d=$dir/ref; fi
  (cd "$d" && sqlite3 :memory: < "$root/tests/blobs.sql") > $dir/blobs-$b.out 2>&1
done
check "BLOB statements give 11 digests" \
  [ "$(grep -c '^[a-z0-9-]*|[0-9A-F]\{64\}' $dir/blobs-ref.out)" = 11 ]
check "BLOB statements report no error" not grep -qi error $dir/blobs-ref.out
check "BLOBs byte-identical" cmp -s $dir/blobs-dist.out $dir/blobs-ref.out

# The README's program, the amalgamation compiled in.
snip c 0 > "$top/app.c"
cmd=$(snip sh 2)
echo "build: $cmd"
check "README program builds" sh -c "cd '$top' && $cmd"
out=$("$top/app" 2>&1)
version=$(sed -n 's/^#define CUCKOO_VERSION "\(.*\)"$/\1/p' "$top/cuckoo.h")
check "README program runs: $out" [ "$out" = "cuckoo $version" ]
(cd "$top" && cc -c -O2 -DSQLITE_CORE cuckoo.c -o cuckoo.o)
ext=$(nm -g --defined-only "$top/cuckoo.o" | awk '{print $3}' | tr '\n' ' ')
check "static object's external names: [$ext]" [ "$ext" = "sqlite3_cuckoo_init " ]

finish
