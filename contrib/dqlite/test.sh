#!/bin/sh
# test.sh: the cuckoo extension on a 3-node dqlite cluster (make test-dqlite).
#
#   sh contrib/dqlite/test.sh build/cuckoo-node ./cuckoo.so
#
# Three cuckoo-node processes on 127.0.0.1 (ports free at the time, data
# directories under a temporary directory, every node stopped by its PID
# when the script ends, every wait bounded); clients are the go-dqlite
# shell `dqlite`; local comparisons run the sqlite3 shell with the
# loadable build (second argument).  Checked:
#   0. the session of docs/distributed.md (its sh blocks) runs and prints
#      what the document shows;
#   1. filters built with cuckoo_agg on the cluster are the very BLOBs a
#      local build gives, and probing them finds every item;
#   2. a cuckoo table written in transactions: a trigger on an ordinary
#      table log copies each row into the cuckoo table ct, so one INSERT
#      is one transaction over both; a transaction that fails half-way
#      leaves nothing in either;
#   3. KILLS times: the leader is killed with SIGKILL while a large
#      transaction (ROUND_ITEMS rows into log and ct) is in flight; the
#      round's rows are all there or all absent (a transaction the client
#      saw commit is there), the table's count equals log's; writes go on
#      with the two survivors; the killed node restarts, rejoins and
#      catches up, checked on its own copy of the database;
#   4. at the end every committed item is found, cuckoo_check and
#      integrity_check say ok, on the cluster and on the copy of the last
#      killed node (dumped from it, opened with the local sqlite3 shell).
# It prints the measured figures (insert and probe throughput through the
# cluster and locally, failover and catch-up times) and ends with
# "N passed, N failed".
#
# Environment: KILLS (default 3), ROUND_ITEMS (default 100000),
# NODE_OPTS (default "--snapshot-threshold 32 --snapshot-trailing 64": a
# restarted node catches up from the Raft log.  With a snapshot every 8
# transactions it catches up from a snapshot, but in about one run of six
# it then waited 20 s and more, see docs/distributed.md).

NODE=${1:-build/cuckoo-node}
EXT=${2:-./cuckoo.so}
KILLS=${KILLS:-3}
ROUND_ITEMS=${ROUND_ITEMS:-100000}
NODE_OPTS=${NODE_OPTS:---snapshot-threshold 32 --snapshot-trailing 64}
case $EXT in /*) ;; *) EXT=$(pwd)/$EXT ;; esac

. "$(dirname "$0")/cluster.sh"

npass=0
nfail=0
START=$(now)

# check NAME GOT WANT
check() {
  if [ "$2" = "$3" ]; then
    npass=$((npass + 1))
    echo "ok $1"
  else
    nfail=$((nfail + 1))
    echo "FAIL $1: got [$2], expected [$3]"
  fi
}

# figure TEXT: a measured figure, one line.
figure() { echo "figure: $*"; }

# local_sql DB SQL: the sqlite3 shell with the extension loaded.
local_sql() { sqlite3 -batch -cmd ".load $EXT" "$1" "$2"; }

# The rows 1..N, for the statements below (dqlite's SQLite has no
# generate_series).
series() {
  echo "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<$1)"
}

# median A B C
median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

# rate N SECONDS: N/SECONDS rounded to thousands per second ("k/s").
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0fk/s", n / s / 1000 }'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }

# timed SQL [SERVERS]: run through the cluster, print the seconds taken.
timed() {
  t0=$(now)
  dq "$1" "$2" >/dev/null || echo "timed statement failed: $1" >&2
  elapsed "$t0"
}

timed_local() {
  t0=$(now)
  local_sql "$1" "$2" >/dev/null
  elapsed "$t0"
}

cluster_init "$NODE" 3 $NODE_OPTS
LOCAL=$CL_DIR/local
mkdir -p "$LOCAL"

# 0. The session of docs/distributed.md, run as written but for the
# ports (free ones instead of 9001-9003) and the node binary's path: its
# three sh blocks start a cluster, use it, stop it.  The output of the
# second block is the document's first text block.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DOC=$ROOT/docs/distributed.md
DOCDIR=$CL_DIR/doc
mkdir -p "$DOCDIR"
case $NODE in /*) NODE_ABS=$NODE ;; *) NODE_ABS=$(pwd)/$NODE ;; esac
set -- $(free_ports 3)
for b in 0 1 2; do
  python3 "$ROOT/tests/snippets.py" "$DOC" sh --block "$b" |
    sed -e "s/127.0.0.1:9001/127.0.0.1:$1/g" -e "s/127.0.0.1:9002/127.0.0.1:$2/g" \
      -e "s/127.0.0.1:9003/127.0.0.1:$3/g" -e "s#build/cuckoo-node#$NODE_ABS#g" \
      >"$DOCDIR/block$b.sh"
done
(cd "$DOCDIR" && timeout 60 sh block0.sh)
for n in 1 2 3; do
  [ -f "$DOCDIR/data/$n.pid" ] && cp "$DOCDIR/data/$n.pid" "$CL_DIR/pid.doc$n"
done
got=$(cd "$DOCDIR" && timeout 60 sh block1.sh 2>&1 |
  sed -e "s/127.0.0.1:$1/127.0.0.1:9001/" -e "s/127.0.0.1:$2/127.0.0.1:9002/" \
    -e "s/127.0.0.1:$3/127.0.0.1:9003/")
check dqlite-0.1 "$got" "$(python3 "$ROOT/tests/snippets.py" "$DOC" text --block 0)"
(cd "$DOCDIR" && timeout 10 sh block2.sh)
stopped=0
for n in 1 2 3; do
  pid=$(cat "$CL_DIR/pid.doc$n" 2>/dev/null) || continue
  k=0
  while kill -0 "$pid" 2>/dev/null && [ "$k" -lt 250 ]; do
    sleep_ms 20
    k=$((k + 1))
  done
  kill -0 "$pid" 2>/dev/null || stopped=$((stopped + 1))
  rm -f "$CL_DIR/pid.doc$n"
done
check dqlite-0.2 "$stopped nodes stopped by SIGTERM" "3 nodes stopped by SIGTERM"

for i in 1 2 3; do
  node_start "$i" || {
    echo "0 passed, 1 failed"
    exit 1
  }
done
check dqlite-0.3 "$(dq .cluster | cut -d'|' -f3 | tr '\n' ' ')" \
  "voter voter voter "
check dqlite-0.4 "$(dq "SELECT cuckoo_version()")" \
  "$(local_sql :memory: "SELECT cuckoo_version()")"

# 1. Filters built by cuckoo_agg: four shards of 20000 items each.
AGG="SELECT i % 4 AS shard, cuckoo_agg(i, 0.001, 25000) AS f FROM ($(series 80000) SELECT i FROM c) GROUP BY 1"
dq "CREATE TABLE filters AS $AGG" >/dev/null
SHAPE="SELECT group_concat(shard || ':' || cuckoo_count(f) || ':' || length(f), ' ')"
check dqlite-1.1 "$(dq "$SHAPE FROM (SELECT * FROM filters ORDER BY shard)")" \
  "$(local_sql :memory: "$SHAPE FROM ($AGG ORDER BY shard)" | grep ':20000:.*:20000:.*:20000:.*:20000:')"
check dqlite-1.2 \
  "$(dq "SELECT group_concat(hex(f), ',') FROM (SELECT f FROM filters ORDER BY shard)" | md5sum)" \
  "$(local_sql :memory: "SELECT group_concat(hex(f), ',') FROM ($AGG ORDER BY shard)" | grep . | md5sum)"
# probe_shards N OFFSET: how many of i + OFFSET, i = 1..N, the filter of
# their shard finds (each filter a constant of its subquery, so it is
# validated once, not once per row).
probe_shards() {
  q="$(series "$1") SELECT 0"
  for k in 0 1 2 3; do
    q="$q + (SELECT count(*) FROM c WHERE (i + $2) % 4 = $k AND cuckoo_contains((SELECT f FROM filters WHERE shard = $k), i + $2))"
  done
  dq "SELECT n FROM ($q AS n)"
}
check dqlite-1.3 "$(probe_shards 80000 0)" 80000
# Items never added: false positives only, far fewer than 1%.
check dqlite-1.4 "$(probe_shards 40000 1000000 | awk '{ print ($1 < 400) }')" 1

# 2. A cuckoo table written in transactions, through a trigger.
dq "CREATE VIRTUAL TABLE ct USING cuckoo(capacity=50000, error_rate=0.001)" >/dev/null
dq "CREATE TABLE log(r INTEGER, x TEXT)" >/dev/null
dq "CREATE TABLE beats(v INTEGER PRIMARY KEY)" >/dev/null
printf '%s\n' "CREATE TRIGGER log_ct AFTER INSERT ON log BEGIN SELECT RAISE(ABORT, 'refused') WHERE new.r < 0; INSERT INTO ct(item) VALUES (new.x); END" |
  dq_stdin
check dqlite-2.1 "$(dq "SELECT count(*) FROM sqlite_schema WHERE name IN ('ct', 'ct_blocks', 'log_ct')")" 3
for k in 1 2 3 4 5; do
  dq "$(series 1000) INSERT INTO log SELECT 0, 't$k-' || i FROM c" >/dev/null
done
# Fails at its last row: the 1000 rows before it must vanish from both.
err=$(dq "$(series 1000) INSERT INTO log SELECT 0, 'junk-' || i FROM c UNION ALL SELECT -1, 'boom'" 2>&1 | head -1)
check dqlite-2.2 "$err" "Error: exec: refused"
check dqlite-2.3 \
  "$(dq "SELECT count(*), (SELECT cuckoo_table_info('ct') ->> 'count') FROM log")" \
  "5000|5000"
check dqlite-2.4 \
  "$(dq "SELECT count(*) < 10 FROM ($(series 1000) SELECT 'junk-' || i AS x FROM c) AS j WHERE EXISTS (SELECT 1 FROM ct WHERE item = j.x)")" \
  1

# The limits of dqlite 1.11 that docs/distributed.md describes.  An error
# raised while a SELECT steps reaches the client with the first column's
# name in place of its message; the same statement run as an exec (here:
# not starting with SELECT, so the shell execs it) carries the message.
check dqlite-2.6 "$(dq "SELECT cuckoo_contains(x'0102', 1)" 2>&1)" \
  "Error: query: cuckoo_contains(x'0102', 1)"
check dqlite-2.7 \
  "$(dq "WITH q AS (SELECT 1) SELECT cuckoo_contains(x'0102', 1)" 2>&1 | cut -c1-30)" \
  "Error: exec: cuckoo_contains: "
# journal_mode changes and ATTACH are refused by the node, and the leader
# lives on.
check dqlite-2.8 "$(dq "PRAGMA journal_mode=DELETE" 2>&1)" \
  "Error: exec: not authorized"
check dqlite-2.9 "$(dq "ATTACH ':memory:' AS m" 2>&1)" \
  "Error: exec: too many attached databases - max 0"
alive=0
for i in 1 2 3; do kill -0 "$(cat "$CL_DIR/pid.$i")" 2>/dev/null && alive=$((alive + 1)); done
check dqlite-2.10 "$alive nodes alive, $(dq "SELECT * FROM pragma_journal_mode")" \
  "3 nodes alive, wal"

# Throughput, median of 3: items into a fresh cuckoo table in one
# statement, and probes of a table of 200000 values (half present),
# through the cluster and in a local database file (WAL mode).
N=200000
PROBE="SELECT count(*) FROM probes WHERE EXISTS (SELECT 1 FROM pt1 WHERE item = probes.x)"
local_sql "$LOCAL/l.db" "PRAGMA journal_mode=WAL" >/dev/null
for k in 1 2 3; do
  dq "CREATE VIRTUAL TABLE pt$k USING cuckoo(capacity=$N, error_rate=0.001)" >/dev/null
  local_sql "$LOCAL/l.db" "CREATE VIRTUAL TABLE pt$k USING cuckoo(capacity=$N, error_rate=0.001)"
done
ins_c="" ins_l=""
for k in 1 2 3; do
  ins_c="$ins_c $(timed "$(series $N) INSERT INTO pt$k(item) SELECT 'p' || i FROM c")"
  ins_l="$ins_l $(timed_local "$LOCAL/l.db" "$(series $N) INSERT INTO pt$k(item) SELECT 'p' || i FROM c")"
done
dq "CREATE TABLE probes AS $(series $N) SELECT 'p' || (i * 2) AS x FROM c" >/dev/null
local_sql "$LOCAL/l.db" "CREATE TABLE probes AS $(series $N) SELECT 'p' || (i * 2) AS x FROM c"
check dqlite-2.5 "$(dq "$PROBE")" "$(local_sql "$LOCAL/l.db" "$PROBE")"
prb_c="" prb_l=""
for k in 1 2 3; do
  prb_c="$prb_c $(timed "$PROBE")"
  prb_l="$prb_l $(timed_local "$LOCAL/l.db" "$PROBE")"
done
# shellcheck disable=SC2086
ins_c=$(median $ins_c) ins_l=$(median $ins_l)
# shellcheck disable=SC2086
prb_c=$(median $prb_c) prb_l=$(median $prb_l)
# The cost of a client call that does nothing, included in the above.
nop=$(median "$(timed "SELECT 1")" "$(timed "SELECT 1")" "$(timed "SELECT 1")")
figure "insert $N items in one statement: cluster ${ins_c}s ($(rate $N "$ins_c")), local ${ins_l}s ($(rate $N "$ins_l")), ratio $(ratio "$ins_c" "$ins_l")"
figure "probe $N items in one query: cluster ${prb_c}s ($(rate $N "$prb_c")), local ${prb_l}s ($(rate $N "$prb_l")), ratio $(ratio "$prb_c" "$prb_l")"
figure "one client call (go-dqlite shell, SELECT 1): ${nop}s"

# 3. Kill the leader in the middle of large transactions.
beat=0
# write_beat SERVERS: one small transaction; prints nothing, fails if the
# cluster did not take it within 2 s.
write_beat() {
  beat=$((beat + 1))
  timeout 2 dqlite -s "$1" db "INSERT OR IGNORE INTO beats VALUES ($beat)" \
    >/dev/null 2>&1
}

# How long a round's transaction takes when nothing is killed: the kills
# land between a third of that and its end (measured from the client's
# start).
round_s=$(timed "$(series "$ROUND_ITEMS") INSERT INTO log SELECT 0, 'r0-' || i FROM c")
figure "a transaction of $ROUND_ITEMS rows into log and ct: ${round_s}s"
lo=$(awk -v s="$round_s" 'BEGIN { printf "%d", s * 1000 / 3 }')
hi=$(awk -v s="$round_s" 'BEGIN { printf "%d", s * 1000 }')

r=0
while [ "$r" -lt "$KILLS" ]; do
  r=$((r + 1))
  L=$(leader_index)
  if [ -z "$L" ]; then
    check "dqlite-3.$r.0 (a leader)" "none" "one"
    break
  fi
  survivors=$(others "$L")
  (timeout 30 dqlite -s "$SERVERS" db \
    "$(series "$ROUND_ITEMS") INSERT INTO log SELECT $r, 'r$r-' || i FROM c" \
    >"$CL_DIR/round$r.out" 2>&1
  echo $? >"$CL_DIR/round$r.rc") &
  client=$!
  delay=$(rand_ms "$lo" "$hi")
  sleep_ms "$delay"
  node_kill "$L"
  t_kill=$(now)
  # Failover: the first transaction the survivors commit.
  deadline=$(($(date +%s) + 20))
  until write_beat "$survivors"; do
    [ "$(date +%s)" -le "$deadline" ] || break
  done
  failover=$(elapsed "$t_kill")
  wait "$client"
  client_rc=$(cat "$CL_DIR/round$r.rc")
  n=$(dq "SELECT count(*) FROM log WHERE r = $r" "$survivors")
  if [ "$n" = "$ROUND_ITEMS" ]; then outcome=committed; else outcome=absent; fi
  [ "$n" = 0 ] || [ "$n" = "$ROUND_ITEMS" ] || outcome="partial ($n rows)"
  figure "round $r: leader node $L killed ${delay} ms into the transaction; transaction $outcome (client exit status $client_rc); failover ${failover}s"
  # Committed or absent, and committed if the client was told so.
  want=$outcome
  case $outcome in partial*) want="committed or absent" ;; esac
  [ "$client_rc" = 0 ] && want=committed
  check "dqlite-3.$r.1 (all or nothing)" "$outcome" "$want"
  check "dqlite-3.$r.2 (ct count = log rows)" \
    "$(dq "SELECT (SELECT cuckoo_table_info('ct') ->> 'count') = count(*) FROM log" "$survivors")" 1
  # Writes go on with two nodes.
  k=0
  while [ "$k" -lt 12 ]; do
    write_beat "$survivors" || break
    k=$((k + 1))
  done
  check "dqlite-3.$r.3 (writes continue)" "$k" 12
  last=$beat
  t_start=$(now)
  if node_start "$L"; then
    ready=$(elapsed "$t_start")
    # Caught up: its own copy holds the last beat.  If it is not there
    # after 10 s, one more write is committed (the figure says so) and the
    # wait goes on for 10 s.
    got=""
    nudged=""
    for wait_s in 10 10; do
      deadline=$(($(date +%s) + wait_s))
      while [ "$(date +%s)" -le "$deadline" ]; do
        node_dump "$L" "$CL_DIR/dump$L" 2>/dev/null &&
          got=$(sqlite3 "$CL_DIR/dump$L/db" "SELECT max(v) FROM beats" 2>/dev/null)
        [ "$got" = "$last" ] && break 2
        sleep_ms 100
      done
      nudged=" (after one more write: its copy had stopped at write $got of $last)"
      write_beat "$SERVERS" && last=$beat
    done
    figure "round $r: node $L restarted: serving in ${ready}s, caught up (its copy holds the last write) in $(elapsed "$t_start")s$nudged"
    check "dqlite-3.$r.4 (rejoined, caught up)" "$got" "$last"
  else
    check "dqlite-3.$r.4 (restarted)" "no" "yes"
  fi
done

# 4. Everything committed is there, on the cluster and on the last killed
# node's own copy.
CHECKSQL="SELECT (SELECT count(*) FROM log WHERE NOT EXISTS (SELECT 1 FROM ct WHERE item = log.x)), (SELECT cuckoo_table_info('ct') ->> 'count') = (SELECT count(*) FROM log), cuckoo_check('ct')"
ROUNDS="SELECT group_concat(r || ':' || n, ' ') FROM (SELECT r, count(*) AS n FROM log GROUP BY r ORDER BY r)"
check dqlite-4.1 "$(dq "$CHECKSQL")" "0|1|ok"
check dqlite-4.2 "$(dq "SELECT * FROM pragma_integrity_check")" "ok"
write_beat "$SERVERS"
check dqlite-4.3 "$(dq "SELECT max(v) FROM beats")" "$beat"
rounds=$(dq "$ROUNDS")
if node_dump "$L" "$CL_DIR/final"; then
  COPY=$CL_DIR/final/db
  check dqlite-4.4 "$(local_sql "$COPY" "$ROUNDS")" "$rounds"
  check dqlite-4.5 "$(local_sql "$COPY" "$CHECKSQL")" "0|1|ok"
  check dqlite-4.6 "$(local_sql "$COPY" "PRAGMA integrity_check")" "ok"
else
  check "dqlite-4.4 (dump of node $L)" "failed" "written"
fi
figure "rounds (r:rows) $rounds; node $L's copy: $(cat "$CL_DIR"/final/db* | wc -c) bytes"
figure "whole test ${KILLS} kills, $(elapsed "$START")s"

echo "$npass passed, $nfail failed"
[ "$nfail" = 0 ]
