# cluster.sh: shell functions to run a throw-away dqlite cluster of
# cuckoo-node processes on 127.0.0.1, sourced by test.sh and latency.sh.
#
#   . contrib/dqlite/cluster.sh
#   cluster_init build/cuckoo-node 3 --latency 100   # free ports, temp dir
#   node_start 1; node_start 2; node_start 3          # node 1 bootstraps
#   dq "SELECT cuckoo_version()"                      # through the cluster
#   node_kill "$(leader_index)"                       # SIGKILL
#   cluster_stop                                      # also run by the trap
#
# Every node runs in the background with its PID kept in $CL_DIR/pid.N and
# is stopped by that PID (SIGTERM, then SIGKILL after 5 s) by the traps
# that cluster_init installs: EXIT, and HUP, INT, PIPE and TERM (a reader
# of the output that goes away must not leave nodes behind).  The data
# directories live under a mktemp -d directory removed by the same trap
# (kept if CL_KEEP is set, e.g. with LIBRAFT_TRACE=1 LIBDQLITE_TRACE=1 to
# read the nodes' logs).  Every wait is bounded: each client call by
# `timeout`, each poll by a deadline.

# Seconds since the epoch, with nanoseconds.
now() { date +%s.%N; }

# elapsed START [END]: seconds between two now() values, 2 decimals.
elapsed() {
  awk -v a="$1" -v b="${2:-$(now)}" 'BEGIN { printf "%.2f", b - a }'
}

# rand_ms LO HI: a random integer in [LO, HI).
rand_ms() {
  # (a 16-bit seed: mawk's srand() takes every seed above 2^31 as one)
  awk -v lo="$1" -v hi="$2" -v s="$(od -An -N2 -tu2 /dev/urandom)" \
    'BEGIN { srand(s + 0); print int(lo + rand() * (hi - lo)) }'
}

# sleep_ms N
sleep_ms() { sleep "$(awk -v n="$1" 'BEGIN { printf "%.3f", n / 1000 }')"; }

# free_ports N: N TCP ports free on 127.0.0.1 right now, one a line.
free_ports() {
  python3 -c '
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print("\n".join(str(s.getsockname()[1]) for s in socks))
' "$1"
}

# cluster_init NODE_BINARY N [NODE OPTIONS...]: N addresses, a data
# directory per node, the trap.  Sets CL_BIN, CL_N, CL_DIR, CL_OPTS,
# SERVERS (every address, comma-separated) and CL_ADDR_1..CL_ADDR_N.
cluster_init() {
  CL_BIN=$1
  CL_N=$2
  shift 2
  CL_OPTS="$*"
  CL_DIR=$(mktemp -d "${TMPDIR:-/tmp}/cuckoo-dqlite.XXXXXX")
  trap 'cluster_stop; [ -n "$CL_KEEP" ] || rm -rf "$CL_DIR"' EXIT
  trap 'exit 129' HUP
  trap 'exit 130' INT
  trap 'exit 141' PIPE
  trap 'exit 143' TERM
  SERVERS=""
  i=0
  for p in $(free_ports "$CL_N"); do
    i=$((i + 1))
    eval "CL_ADDR_$i=127.0.0.1:$p"
    SERVERS="$SERVERS${SERVERS:+,}127.0.0.1:$p"
    mkdir -p "$CL_DIR/node$i"
  done
}

# addr I: the address of node I.
addr() { eval "echo \$CL_ADDR_$1"; }

# others I: the addresses of every node but I, comma-separated.
others() {
  o=""
  j=1
  while [ "$j" -le "$CL_N" ]; do
    [ "$j" = "$1" ] || o="$o${o:+,}$(addr "$j")"
    j=$((j + 1))
  done
  echo "$o"
}

# node_start I: start node I (node 1 bootstraps on its first start; every
# other start joins through the other nodes) and wait up to 30 s for its
# "ready" line.  Returns non-zero, with the node's log on stderr, if it
# died or did not get ready.
node_start() {
  i=$1
  join=""
  if [ "$i" != 1 ] || [ -f "$CL_DIR/started.1" ]; then
    join="--join $(others "$i")"
  fi
  : >"$CL_DIR/started.$i"
  log="$CL_DIR/node$i.log"
  # shellcheck disable=SC2086
  "$CL_BIN" --id "$i" --address "$(addr "$i")" --dir "$CL_DIR/node$i" \
    $join $CL_OPTS >"$log" 2>&1 &
  echo $! >"$CL_DIR/pid.$i"
  deadline=$(($(date +%s) + 30))
  while [ "$(date +%s)" -le "$deadline" ]; do
    if grep -q "ready" "$log"; then return 0; fi
    if ! kill -0 "$(cat "$CL_DIR/pid.$i")" 2>/dev/null; then break; fi
    sleep_ms 20
  done
  echo "node $i did not start:" >&2
  cat "$log" >&2
  return 1
}

# node_kill I: SIGKILL node I and reap it.
node_kill() {
  pid=$(cat "$CL_DIR/pid.$1")
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  rm -f "$CL_DIR/pid.$1"
}

# cluster_stop: SIGTERM every node still running, SIGKILL after 5 s.
cluster_stop() {
  for f in "$CL_DIR"/pid.*; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    kill -TERM "$pid" 2>/dev/null
    n=0
    while kill -0 "$pid" 2>/dev/null && [ "$n" -lt 250 ]; do
      sleep_ms 20
      n=$((n + 1))
    done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    rm -f "$f"
  done
}

# dq SQL [SERVERS]: run one statement through the cluster with the go-dqlite
# shell (a statement per call: the shell runs each in a transaction of its
# own and splits its argument at every ';').  At most 30 s.
# On failure only the shell's first error line reaches stderr (not the usage
# text it prints after it).
dq() {
  timeout 30 dqlite -s "${2:-$SERVERS}" db "$1" 2>"$CL_DIR/dq.err"
  rc=$?
  [ "$rc" = 0 ] || head -1 "$CL_DIR/dq.err" >&2
  return "$rc"
}

# dq_stdin SERVERS: the shell reading statements from stdin, one a line
# (a line may hold ';', as in a trigger's body).  Errors do not change the
# exit status: check the result.
dq_stdin() { timeout 30 dqlite -s "${1:-$SERVERS}" db >/dev/null; }

# leader_index: the number of the node that leads now, or nothing.
leader_index() {
  a=$(timeout 10 dqlite -s "$SERVERS" db .leader 2>/dev/null)
  j=1
  while [ "$j" -le "$CL_N" ]; do
    [ "$(addr "$j")" = "$a" ] && echo "$j"
    j=$((j + 1))
  done
}

# node_dump I DIR: node I's own copy of database "db" (the file and its
# WAL, as the node holds them) written into DIR.
node_dump() {
  mkdir -p "$2"
  rm -f "$2/db" "$2/db-wal"
  (cd "$2" && timeout 30 dqlite -s "$SERVERS" db ".dump $(addr "$1") db") \
    >/dev/null
}
