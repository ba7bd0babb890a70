#!/bin/sh
# run.sh: make cross.  For each CPU named (built by mk/compat.mk into
# build/cross/<cpu>/), under qemu-user:
#   - core_test with its loops divided by SCALE (the golden hashes that
#     pin the BLOB format, the hashing and the kick choices are all kept);
#   - blob_tool: the filters written on this x86-64 machine are checked
#     there (same bytes built, every item found, same bytes written), and
#     the filters it writes are checked here.
# Ends with "N passed, N failed".
#
#   sh tests/cross/run.sh SCALE CPU...
scale=$1
shift
d=build/cross
pass=0
fail=0
summary=""

# run LABEL CMD...: run, show failures, add its "N passed, N failed"
# (its closing line, read by tests/counts.awk; no count, or a non-zero
# exit without a failure counted, is one failure)
run() {
  label=$1
  shift
  out=$("$@" 2>&1)
  rc=$?
  p=0
  f=1
  if counts=$(printf '%s\n' "$out" | awk -f tests/counts.awk); then
    p=${counts%% *}
    f=${counts#* }
    f=${f%% *}
  fi
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
  [ "$f" = 0 ] || echo "$out" | grep -E '^!|rror' | head -20
  pass=$((pass + p))
  fail=$((fail + f))
  summary="$summary$(printf '%-36s %6d passed %4d failed' "$label" "$p" "$f")
"
  printf '%-36s %6d passed %4d failed\n' "$label" "$p" "$f"
}

# one_cpu CPU: every check on CPU, its lines, then its own closing line
one_cpu() {
  cpu=$1
  pass=0
  fail=0
  qemu=qemu-$cpu
  command -v "$qemu" >/dev/null || { echo "no $qemu"; echo "0 passed, 1 failed"; return; }
  mkdir -p $d/blobs/$cpu
  run "$cpu: core_test (loops / $scale)" \
    env CUCKOO_TEST_SCALE="$scale" "$qemu" $d/$cpu/core_test
  run "$cpu: reads x86_64's BLOBs" "$qemu" $d/$cpu/blob_tool check $d/blobs/x86_64
  run "$cpu: blob_tool write" "$qemu" $d/$cpu/blob_tool write $d/blobs/$cpu
  run "x86_64: reads $cpu's BLOBs" $d/blob_tool check $d/blobs/$cpu
  # and the files themselves: every BLOB the same bytes on both machines
  n=0
  same=0
  for f in $d/blobs/x86_64/*.blob; do
    n=$((n + 1))
    cmp -s "$f" "$d/blobs/$cpu/${f##*/}" && same=$((same + 1))
  done
  run "$cpu: files identical to x86_64's" \
    echo "cmp: $same passed, $((n - same)) failed"
  echo "$pass passed, $fail failed"
}

rm -rf $d/blobs
mkdir -p $d/blobs/x86_64
run "x86_64: blob_tool write" $d/blob_tool write $d/blobs/x86_64
# The CPUs run at the same time (each emulator is one process), each
# into $d/<cpu>.out, shown in the order named; each file's closing line
# (tests/counts.awk; none is one failure) is added up.
for cpu in "$@"; do
  one_cpu "$cpu" > $d/$cpu.out 2>&1 &
done
wait
for cpu in "$@"; do
  grep -v -E '^[0-9]+ passed, [0-9]+ failed$' $d/$cpu.out
  p=0
  f=1
  if counts=$(awk -v bare=1 -f tests/counts.awk $d/$cpu.out); then
    p=${counts%% *}
    f=${counts#* }
    f=${f%% *}
  fi
  pass=$((pass + p))
  fail=$((fail + f))
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
