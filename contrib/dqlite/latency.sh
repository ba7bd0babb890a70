#!/bin/sh
# latency.sh: what --latency trades (not part of make test; about 2 minutes).
#
#   sh contrib/dqlite/latency.sh build/cuckoo-node [LATENCY_MS...]
#
# dqlite derives its Raft timeouts from the one-way network latency L:
# heartbeats every 1.5 L, elections after 15 L without one.  The leader
# runs each statement on its event loop, so a statement that runs longer
# than the election timeout silences the heartbeats and the followers
# elect a new leader: the statement fails ("driver: bad connection" in
# the go-dqlite shell).  A smaller L gives a faster failover and a smaller
# largest transaction.  For each L (default 20 50 100 200) on a fresh
# 3-node cluster this prints:
#   - the largest of 2.5e5, 5e5, 1e6, 2e6 items inserted into a cuckoo
#     table in one statement that committed, and how long it took;
#   - the failover time, median of 3 kills of the leader (SIGKILL, then
#     the time until the two survivors commit a write), with the killed
#     node restarted between kills.

NODE=${1:-build/cuckoo-node}
[ $# -gt 0 ] && shift
LATENCIES=${*:-20 50 100 200}

. "$(dirname "$0")/cluster.sh"

series() {
  echo "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<$1)"
}

echo "latency_ms largest_insert_committed seconds failover_s (median of 3)"
for L in $LATENCIES; do
  cluster_init "$NODE" 3 --latency "$L"
  for i in 1 2 3; do node_start "$i" || exit 1; done
  best="none" best_s=""
  k=0
  for n in 250000 500000 1000000 2000000; do
    k=$((k + 1))
    dq "CREATE VIRTUAL TABLE t$k USING cuckoo(capacity=$n)" >/dev/null 2>&1
    t0=$(now)
    if dq "$(series $n) INSERT INTO t$k(item) SELECT i FROM c" >/dev/null 2>&1; then
      best=$n best_s=$(elapsed "$t0")
    else
      break
    fi
  done
  # A failed statement may have cost the cluster its leader: let it settle.
  until dq "CREATE TABLE IF NOT EXISTS beats(v)" >/dev/null 2>&1; do
    sleep_ms 100
  done
  times=""
  for round in 1 2 3; do
    victim=$(leader_index)
    [ -n "$victim" ] || break
    node_kill "$victim"
    t0=$(now)
    deadline=$(($(date +%s) + 30))
    until timeout 2 dqlite -s "$(others "$victim")" db \
      "INSERT INTO beats VALUES ($round)" >/dev/null 2>&1; do
      [ "$(date +%s)" -le "$deadline" ] || break
    done
    times="$times $(elapsed "$t0")"
    node_start "$victim" || exit 1
  done
  # shellcheck disable=SC2086
  med=$(printf '%s\n' $times | sort -n | sed -n 2p)
  echo "$L $best ${best_s:--} $med ($(echo $times | tr ' ' ','))"
  cluster_stop
  rm -rf "$CL_DIR"
done
