# travel.tcl: a database file written under one SQLite version is read and
# written under another (make compat runs it for every pair of versions,
# make test-compat for the oldest and the newest).
#
#   tclsh tests/compat/travel.tcl write DB
#   tclsh tests/compat/travel.tcl check DB...
#
# `write` makes DB: filters in a column (cuckoo_new/add, cuckoo_agg in
# both variants, cuckoo_union) and a cuckoo virtual table grown to
# several levels with some items deleted, plus what the writer saw (its
# SQLite version and its export of every level).  `check` works on a copy
# of each DB: the ordinary and the cuckoo integrity checks pass, every
# filter BLOB is byte-identical to the one this version computes from the
# same SQL, every level exports the writer's bytes, every item is found;
# then it grows the table further and checks again after reopening (a
# table keeps its shadow-table format: tests/compat/format1.db and
# format2.db, written by the last builds of formats 1 and 2, stay in
# their format).
# Prints one line per check that fails, a line per DB, and
# "travel: N passed, N failed".  Uses the Tcl interface the suite uses
# (CUCKOO_TCLSQLITE, else package require sqlite3) and CUCKOO_EXT.

if {[info exists env(CUCKOO_TCLSQLITE)]} {
  load $env(CUCKOO_TCLSQLITE) Sqlite3
} else {
  package require sqlite3
}
set ext [file normalize [expr {[info exists env(CUCKOO_EXT)] ?
                               $env(CUCKOO_EXT) : "cuckoo.so"}]]

# The filters of the column, as name and SQL; writer and reader both run
# them, and the reader compares bytes.
set filterSql {
  new_add  {SELECT cuckoo_add(cuckoo_new(1000, 0.01), 'a', 2, 3.5, x'00ff', 'a')}
  agg      {SELECT cuckoo_agg(i, 0.001, 5000) FROM n}
  semisort {SELECT cuckoo_agg('s' || i, 0.0001, 6000, 'semisort,bucket_size=4')
            FROM n}
  bucket8  {SELECT cuckoo_agg(i * 7, 0.01, 3000, 'bucket_size=8,seed=99')
            FROM n}
  union    {SELECT cuckoo_union(f) FROM
              (SELECT cuckoo_agg(i, 0.001, 5000) AS f FROM n WHERE i <= 1000
               UNION ALL
               SELECT cuckoo_agg(i, 0.001, 5000) FROM n WHERE i > 1000)}
  removed  {SELECT cuckoo_remove(cuckoo_agg(i, 0.001, 5000), 1, 2, 3) FROM n}
  window   {SELECT f FROM
              (SELECT i, cuckoo_agg(i, 0.01, 100) OVER
                 (ORDER BY i ROWS BETWEEN 49 PRECEDING AND CURRENT ROW) AS f
               FROM n)
            WHERE i = 1234}
}
set numbers {WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
                                     WHERE i < 2500)}

proc open_ext {name file} {
  sqlite3 $name $file
  $name enable_load_extension 1
  $name eval {SELECT load_extension($::ext)}
}

proc write_db {file} {
  file delete -force $file
  open_ext db $file
  db eval {
    CREATE TABLE meta(k TEXT PRIMARY KEY, v);
    CREATE TABLE filters(name TEXT PRIMARY KEY, f BLOB);
    CREATE TABLE exports(level INTEGER PRIMARY KEY, f BLOB);
    INSERT INTO meta VALUES ('sqlite_version', sqlite_version());
    CREATE VIRTUAL TABLE grown USING cuckoo(capacity=400, error_rate=0.001,
                                            block_size=128);
  }
  foreach {name sql} $::filterSql {
    db eval "INSERT INTO filters SELECT \$name, ($::numbers $sql)"
  }
  db eval "$::numbers INSERT INTO grown SELECT 'g' || i FROM n WHERE i <= 2000"
  db eval {DELETE FROM grown WHERE item IN ('g1', 'g2', 'g3')}
  set nLevel [db one {SELECT json_extract(cuckoo_table_info('grown'), '$.levels')}]
  for {set l 0} {$l < $nLevel} {incr l} {
    db eval {INSERT INTO exports VALUES ($l, cuckoo_export('main', 'grown', $l))}
  }
  db close
  puts "travel: wrote $file ([file size $file] bytes, grown has $nLevel levels)"
}

set nPass 0
set nFail 0
proc ok {what cond} {
  if {$cond} {
    incr ::nPass
  } else {
    incr ::nFail
    puts "! $::label: $what"
  }
}

# Every item written is found, the deleted ones are not, and a few
# thousand absent items are nearly all absent.
proc lookups {nItems} {
  set found [db one "WITH RECURSIVE n(i) AS (SELECT 4 UNION ALL
                       SELECT i + 1 FROM n WHERE i < $nItems)
                     SELECT count(*) FROM n JOIN grown g ON g.item = 'g' || n.i"]
  ok "all [expr {$nItems - 3}] items found (found $found)" \
      [expr {$found == $nItems - 3}]
  set gone [db one {SELECT count(*) FROM grown WHERE item IN ('g1', 'g2', 'g3')}]
  ok "deleted items absent ($gone found)" [expr {$gone == 0}]
  set fp [db one "$::numbers SELECT count(*) FROM n JOIN grown g
                  ON g.item = 'absent' || n.i"]
  ok "absent items mostly absent ($fp of 2500 found)" [expr {$fp < 50}]
}

proc check_db {file} {
  set copy [file join [file dirname $file] check-[pid].db]
  file delete -force $copy
  file copy $file $copy
  open_ext db $copy
  set writer [db one {SELECT v FROM meta WHERE k = 'sqlite_version'}]
  set format [db one {SELECT v FROM grown_config WHERE k = 'version'}]
  set ::label "written by $writer (format $format), read by [db one {SELECT sqlite_version()}]"
  set f0 $::nFail
  ok "PRAGMA integrity_check" [expr {[db eval {PRAGMA integrity_check}] eq "ok"}]
  ok "cuckoo_check" [expr {[db one {SELECT cuckoo_check('grown')}] eq "ok"}]
  foreach {name sql} $::filterSql {
    set same [db one "SELECT f = ($::numbers $sql) FROM filters
                      WHERE name = \$name"]
    ok "filter $name byte-identical" [expr {$same eq "1"}]
  }
  ok "filters answer" [expr {[db one {
    SELECT cuckoo_contains(f, 3.5) AND cuckoo_count(f) = 5 FROM filters
    WHERE name = 'new_add'}] == 1}]
  set nLevel [db one {SELECT json_extract(cuckoo_table_info('grown'), '$.levels')}]
  ok "levels ($nLevel)" [expr {$nLevel > 1 &&
                               $nLevel == [db one {SELECT count(*) FROM exports}]}]
  db eval {SELECT level, f FROM exports} {
    ok "level $level exported byte-identical" \
        [expr {[db one {SELECT cuckoo_export('main', 'grown', $level) = $f}] == 1}]
  }
  lookups 2000
  # this version writes: more growth, a changed filter
  db eval "$::numbers INSERT INTO grown SELECT 'g' || (2000 + i) FROM n"
  db eval {UPDATE filters SET f = cuckoo_add(f, 'more') WHERE name = 'agg'}
  db close
  open_ext db $copy
  ok "cuckoo_check after writing" \
      [expr {[db one {SELECT cuckoo_check('grown')}] eq "ok"}]
  ok "integrity_check after writing" \
      [expr {[db eval {PRAGMA integrity_check}] eq "ok"}]
  lookups 4500
  ok "format $format kept after writing" \
      [expr {[db one {SELECT v FROM grown_config WHERE k = 'version'}] == $format}]
  ok "written filter" [expr {[db one {SELECT cuckoo_contains(f, 'more')
                                      FROM filters WHERE name = 'agg'}] == 1}]
  db close
  file delete -force $copy
  puts [format "travel: %-52s %s" $::label \
            [expr {$::nFail == $f0 ? "ok" : "FAILED"}]]
}

lassign $argv cmd
switch -- $cmd {
  write { write_db [lindex $argv 1] }
  check {
    foreach f [lrange $argv 1 end] {
      if {[catch {check_db $f} msg]} {
        catch {db close}
        incr nFail
        puts "! $f: $msg"
      }
    }
    puts "travel: $nPass passed, $nFail failed"
    exit [expr {$nFail ? 1 : 0}]
  }
  default {
    puts stderr "usage: travel.tcl write DB | check DB..."
    exit 2
  }
}
