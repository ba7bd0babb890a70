#!/bin/sh
# browser.sh: a page in Debian's headless Chromium, served from 127.0.0.1
# by tests/wasm/server.mjs, that reports back to that server.  Part of
# cuckoo (MIT License, see LICENSE).
#
#   sh tests/wasm/browser.sh DIR PAGE OUTDIR [SECONDS]
#
# Starts the server on DIR (a port the system picks), then
# `chromium --headless=new --no-sandbox` on http://127.0.0.1:PORT/PAGE in
# a session of its own, waits until the page posts report/done (or
# SECONDS, default 300, pass), then stops the Chromium it started (its
# process group, by id) and exits with the server's status: 0 if the page
# reported done.  The page's reports are in OUTDIR.
set -u
dir=$1 page=$2 out=$3 secs=${4:-300}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
portfile=$out/port
rm -f "$portfile"
node "$here/server.mjs" "$dir" "$portfile" "$out" "$secs" &
server=$!
i=0
while [ ! -s "$portfile" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if [ ! -s "$portfile" ]; then
  echo "browser.sh: the server did not start" >&2
  kill "$server" 2>/dev/null
  exit 1
fi
port=$(cat "$portfile")
profile=$out/chromium-profile
rm -rf "$profile"
setsid chromium --headless=new --no-sandbox --disable-gpu --no-first-run \
  --no-default-browser-check --disable-extensions --disable-dev-shm-usage \
  --user-data-dir="$profile" "http://127.0.0.1:$port/$page" \
  > "$out/chromium.log" 2>&1 &
chrome=$!
wait "$server"
rc=$?
# setsid made chromium the leader of a process group of its own: stop it
# and its helpers (renderer, GPU, zygote) by that group's id.
kill -TERM "-$chrome" 2>/dev/null
i=0
while kill -0 "$chrome" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL "-$chrome" 2>/dev/null
wait "$chrome" 2>/dev/null
if [ $rc != 0 ]; then
  echo "browser.sh: the page did not finish; chromium's log:" >&2
  tail -20 "$out/chromium.log" >&2
fi
exit $rc
