# empty_bench.tcl: what it costs to count and to empty a cuckoo table of N
# items (default 10^7): count(*) (no block read), a full scan that reads a
# column, DELETE FROM, the 'delete-all' command, and DROP TABLE; each
# emptying in a transaction rolled back, median of 3, in one run, with the
# ratio of DELETE FROM to 'delete-all'.  Each emptying must leave count 0
# and cuckoo_check ok, and its rollback every item.
#
#   tclsh tests/tools/empty_bench.tcl ./cuckoo.so [N]

package require sqlite3
set ext [file normalize [lindex $argv 0]]
set n [expr {[llength $argv] > 1 ? [lindex $argv 1] : 10000000}]
set dir build/bench-tools
file mkdir $dir
set f $dir/empty.db
foreach x [list $f $f-journal] { file delete -force $x }
sqlite3 db $f
db enable_load_extension 1
db eval {SELECT load_extension($ext)}
db eval "CREATE VIRTUAL TABLE seen USING cuckoo(capacity=$n, error_rate=0.001)"
db eval "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n
         WHERE i<$n) INSERT INTO seen SELECT i FROM n"

proc median3 {script} {
  set t {}
  for {set i 0} {$i < 3} {incr i} {
    lappend t [lindex [time {uplevel 1 $script}] 0]
  }
  expr {[lindex [lsort -integer $t] 1] / 1e6}
}
# Run sql (which must empty the table) in a transaction rolled back;
# its time in microseconds.
proc emptied {sql} {
  db eval BEGIN
  set s [lindex [time {db eval $sql}] 0]
  set c [db one {SELECT count(*) FROM seen}]
  set ok [db one {SELECT cuckoo_check('seen')}]
  db eval ROLLBACK
  if {$c != 0 || $ok ne "ok"} { error "$sql left $c items ($ok)" }
  if {[db one {SELECT count(*) FROM seen}] != $::n} {
    error "ROLLBACK after $sql did not bring every item back"
  }
  return $s
}
proc empty_median {sql} {
  set t {}
  for {set i 0} {$i < 3} {incr i} { lappend t [emptied $sql] }
  expr {[lindex [lsort -integer $t] 1] / 1e6}
}

set tCount [median3 {db one {SELECT count(*) FROM seen}}]
set tScan [median3 {db one {SELECT count(fingerprint) FROM seen}}]
set tInfo [median3 {db one {SELECT cuckoo_table_info('seen')}}]
set tDelete [empty_median {DELETE FROM seen}]
set tAll [empty_median {INSERT INTO seen(seen) VALUES ('delete-all')}]
# every item is back after the rollbacks (a lookup each)
set found [db one "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1
                   FROM n WHERE i<$n) SELECT count(*) FROM n JOIN seen
                   ON seen.item = n.i"]
if {$found != $n} { error "after the rollbacks only $found of $n items found" }
db eval BEGIN
set tDrop [expr {[lindex [time {db eval {DROP TABLE seen}}] 0] / 1e6}]
db eval ROLLBACK
db close

puts [format "items %d (capacity %d: one level)" $n $n]
puts [format "%-44s %8.3f s" "SELECT count(*) (no block read)" $tCount]
puts [format "%-44s %8.3f s" "SELECT count(fingerprint) (reads blocks)" $tScan]
puts [format "%-44s %8.3f s" "cuckoo_table_info() (count in JSON)" $tInfo]
puts [format "%-44s %8.3f s" "DELETE FROM seen" $tDelete]
puts [format "%-44s %8.3f s" "INSERT INTO seen(seen) VALUES('delete-all')" $tAll]
puts [format "%-44s %8.3f s" "DROP TABLE seen" $tDrop]
puts [format "DELETE FROM / 'delete-all': %.1fx" [expr {$tDelete / $tAll}]]
puts "every emptying: count 0 and cuckoo_check ok; after ROLLBACK all $n items found"
