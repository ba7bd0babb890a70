# msvc.sh: cuckoo.c built as Microsoft's compiler builds it, as near as
# Linux allows; sourced by tests/windows/run.sh (its check, same, $d, $t,
# $W, $WINE, and the Linux outputs it has made).  No MSVC runs here:
#
#   - clang-cl (Debian's clang-tools-14) stands in for cl.  It takes cl's
#     command line and defines _MSC_VER, not __GNUC__; __SIZEOF_INT128__
#     is undefined (cl has no 128-bit integer type), so the code paths are
#     the ones cl compiles;
#   - Wine's headers of Microsoft's C runtime (libwine-dev) stand in for
#     the Windows SDK's, and lld-link with Wine's import libraries of
#     ucrtbase.dll and kernel32.dll for link.exe and the SDK's libraries.
#     The DLL is linked with /NOENTRY (no C runtime start-up code: the
#     MSVC branch of ext/cuckoo_port.h needs none) and _fltused defined
#     here (the one symbol of the runtime's static library it needs).
#
# Checks:
#   - the ```cmd msvc block of docs/install.md, the cl /LD command, run on
#     the release tarball's cuckoo.c with clang-cl for cl, the stand-ins'
#     options added, no warning at /W3 (/WX);
#   - the compiled branches are MSVC's: CF_PORT_MSVC defined by
#     cuckoo_port.h, __GNUC__ and the AVX-512 batches (GCC's) not;
#   - no GCC extension left in cuckoo.c once preprocessed (__builtin_,
#     __attribute__, __int128, __asm__): clang-cl accepts them, cl does not;
#   - that DLL, loaded by sqlite3.exe under wine, exports only the entry
#     point, gives Linux's BLOBs (tests/blobs.sql) and prints the demo as
#     Linux does;
#   - the port's third branch, plain C: core_test built by gcc with
#     -DCF_PORT_FORCE_C, its loops divided by CUCKOO_TEST_SCALE.
CL=${CL:-clang-cl-14}
WINE_INC=/usr/include/wine/wine
WINE_LIB=/usr/lib/x86_64-linux-gnu/wine/x86_64-windows
m=$d/msvc
rm -rf $m && mkdir -p $m
# What stands in for the Windows SDK, added to the documented command.
cl_sdk="/imsvc $WINE_INC/msvcrt /imsvc $WINE_INC/windows /U__SIZEOF_INT128__ \
  -Wno-unused-function -Werror=vla"
printf 'int _fltused = 0;\n' >$m/fltused.c
$CL /nologo /c /GS- /Fo$m/fltused.obj $m/fltused.c >$m/fltused.log 2>&1
link_sdk="-fuse-ld=lld /link /NOENTRY /NODEFAULTLIB $root/$m/fltused.obj \
  $WINE_LIB/libucrtbase.a $WINE_LIB/libkernel32.a"

ncl=$(python3 tests/snippets.py docs/install.md cmd | python3 -c '
import json, sys
print(len([b for b in json.load(sys.stdin) if "msvc" in b["flags"]]))')
cl_cmd=$(python3 tests/snippets.py docs/install.md cmd | python3 -c '
import json, sys
b = [b for b in json.load(sys.stdin) if "msvc" in b["flags"]]
sys.stdout.write(b[0]["code"].strip() if b else "")')
check "docs/install.md: 1 cmd msvc block ($ncl): $cl_cmd" \
  sh -c "[ $ncl = 1 ] && [ \"\${1%% *}\" = cl ]" - "$cl_cmd"
# In a directory of its own: the tarball's cuckoo.c and the headers the
# MinGW command uses.  /GS-: the security-cookie checks are in the
# runtime's static library.
mkdir -p $m/src
cp $t/cuckoo.c $t/sqlite3.h $t/sqlite3ext.h $t/xxhash.h $m/src/
(cd $m/src && $CL ${cl_cmd#cl} /GS- $cl_sdk $link_sdk) >$m/cl.log 2>&1
rc=$?
check "docs (cmd msvc 0) with $CL for cl: builds cuckoo.dll, no warning" \
  sh -c "[ $rc = 0 ] && [ -f $m/src/cuckoo.dll ] && ! grep -qi warning $m/cl.log"
[ $rc = 0 ] || head -20 $m/cl.log

# The probe: the branches cl would compile.
cat >$m/probe.c <<'EOF'
#include "cuckoo.c"
#ifndef CF_PORT_MSVC
#error "cuckoo_port.h did not take its MSVC branch"
#endif
#if defined(__GNUC__) || defined(CF_PORT_GNU) || defined(CF_AVX512)
#error "a GCC branch was compiled"
#endif
#ifdef CF_CONSTRUCTOR
#error "CF_CONSTRUCTOR is GCC's"
#endif
EOF
check "MSVC mode: cuckoo_port.h's MSVC branch compiled, no GCC branch" \
  $CL /nologo /Zs $cl_sdk /I$m/src $m/probe.c

# No GCC extension in the preprocessed cuckoo.c: the lines that come from
# it (line markers) and not from the headers it includes; the macros of
# <stdarg.h> expand to clang's own builtins, and are left out.
$CL /nologo /E $cl_sdk /I$m/src $m/src/cuckoo.c 2>/dev/null | awk '
  /^#(line)? [0-9]+ "/ {
    f = $0
    sub(/^#(line)? [0-9]+ "/, "", f)
    sub(/".*/, "", f)
    ours = (f ~ /(^|\/)cuckoo\.c$/)
    next
  }
  ours {
    x = $0
    gsub(/__builtin_va_[a-z]+/, "", x) # va_start and va_end: <stdarg.h>
    if (x ~ /__builtin_|__attribute__|__int128|__asm__/) { print; n++ }
  }
  END { exit n > 0 }' >$m/gnu.txt
check "MSVC mode: no __builtin_, __attribute__, __int128 or __asm__ in cuckoo.c ($(wc -l <$m/gnu.txt) lines)" \
  [ ! -s $m/gnu.txt ]

# The DLL under wine.
exports=$(x86_64-w64-mingw32-objdump -p $m/src/cuckoo.dll 2>/dev/null |
  sed -n '/Ordinal\/Name Pointer/,/^$/s/^[[:space:]]*\[ *[0-9]*\] //p' | tr '\n' ' ')
check "cl's cuckoo.dll exports [$exports]" [ "$exports" = "sqlite3_cuckoo_init " ]
cp $m/src/cuckoo.dll $m/
cp tests/blobs.sql $d/in
(cd $m && $WINE "$root/$W/sqlite3.exe" :memory:) <$d/in 2>&1 |
  tr -d '\r' >$d/blobs-msvc.out
check "cl's cuckoo.dll gives Linux's BLOBs" same blobs-msvc.out blobs-linux.out
cp sql/demo.sql $d/in
(cd $m && $WINE "$root/$W/sqlite3.exe" :memory:) <$d/in 2>&1 |
  tr -d '\r' >$d/demo-msvc.out
check "cl's cuckoo.dll prints the demo as Linux does" same demo-msvc.out demo-linux.out

# The plain-C branch of cuckoo_port.h, on Linux (mk/windows.mk builds it).
tool portable "core_test, plain C (-DCF_PORT_FORCE_C, loops / $scale)" \
  env CUCKOO_TEST_SCALE="$scale" $W/core_portable_test
