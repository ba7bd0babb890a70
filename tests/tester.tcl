# tester.tcl: the cuckoo test harness, in the style of SQLite's own.
#
# Each tests/*.test file sources this file, runs tests, and ends with
# finish_test, which prints "<file>: N passed, N failed" and exits with a
# non-zero status on any failure.  tests/run.tcl runs every file in its
# own tclsh process and adds up the counts.
#
#   do_test NAME SCRIPT EXPECTED       run SCRIPT, compare its result
#   do_execsql_test NAME SQL EXPECTED  run SQL on db, compare the rows
#   do_catchsql_test NAME SQL EXPECTED {0 rows} or {1 message}
#   do_eqp_test NAME SQL PATTERN       EXPLAIN QUERY PLAN matches PATTERN
#   sqlite3 DB FILE / load_cuckoo DB   open a database with the extension
#   open_db DB FILE                    (re)open DB on FILE with the extension
#   test_dir                           this file's own directory under build/
#   fresh_db                           this file's own database, new: see below
#   forcedelete FILE ...               delete files, ignoring errors
#   $::sanitized                       1 under ASan/UBSan (make asan), else 0
#   needs_sqlite VERSION WHY CMD...    run CMD only on SQLite VERSION+,
#                                      else count it as skipped
#
# The extension to load comes from the CUCKOO_EXT environment variable
# (tests/run.tcl sets it), default ./cuckoo.so.  The Tcl interface is
# Debian's (package require sqlite3) unless CUCKOO_TCLSQLITE names a
# libtclsqlite3.so to load instead (make compat: another SQLite version).

if {[info exists ::env(CUCKOO_TCLSQLITE)]} {
  load $::env(CUCKOO_TCLSQLITE) Sqlite3
} else {
  package require sqlite3
}

set ::testdir [file dirname [file normalize [info script]]]
set ::nPass 0
set ::nFail 0
set ::failList {}
if {[info exists ::env(CUCKOO_EXT)]} {
  set ::cuckoo_ext $::env(CUCKOO_EXT)
} else {
  set ::cuckoo_ext [file join [file dirname $::testdir] cuckoo.so]
}
set ::cuckoo_ext [file normalize $::cuckoo_ext]

proc load_cuckoo {db} {
  $db enable_load_extension 1
  $db eval {SELECT load_extension($::cuckoo_ext)}
}

# Open (or reopen) database handle NAME on FILE with the extension loaded.
proc open_db {name file} {
  catch {$name close}
  sqlite3 $name $file
  load_cuckoo $name
}

# test_dir: this test file's own directory, build/<file name without
# .test> under the current directory (tests/run.tcl runs files at once,
# from the repository's top), created; sets ::dir and returns it.
proc test_dir {} {
  set ::dir [file join [pwd] build [file rootname [file tail [info script]]]]
  file mkdir $::dir
  return $::dir
}

# fresh_db: a new, empty database for this test file, opened as db with
# the extension: a.db in test_dir, in ::dbfile, deleted with its journals
# before db (closed first if open) opens it.  Returns ::dbfile.
proc fresh_db {} {
  catch {db close}
  set ::dbfile [file join [test_dir] a.db]
  forcedelete $::dbfile
  open_db db $::dbfile
  return $::dbfile
}

# 1 when the suite runs under ASan/UBSan (tests/run.tcl --sanitized sets
# CUCKOO_SANITIZED=1): the files scale their longest loops down by it.
set ::sanitized [expr {[info exists ::env(CUCKOO_SANITIZED)] &&
                       $::env(CUCKOO_SANITIZED) eq "1"}]

proc forcedelete {args} {
  foreach f $args {
    catch {file delete -force $f}
    catch {file delete -force $f-journal}
    catch {file delete -force $f-wal}
    catch {file delete -force $f-shm}
  }
}

proc test_result {name ok got expected} {
  if {$ok} {
    incr ::nPass
  } else {
    incr ::nFail
    lappend ::failList $name
    puts "! $name failed"
    puts "!   expected: [string range $expected 0 600]"
    puts "!   got:      [string range $got 0 600]"
  }
}

proc do_test {name script expected} {
  if {[catch {uplevel 1 $script} got]} {
    set got "ERROR: $got"
  }
  test_result $name [expr {$got eq $expected}] $got $expected
}

proc execsql {sql {db db}} {
  uplevel 1 [list $db eval $sql]
}

proc catchsql {sql {db db}} {
  set rc [catch {uplevel 1 [list $db eval $sql]} msg]
  list $rc $msg
}

proc do_execsql_test {name sql expected} {
  # Normalise the expected list's white space the way Tcl lists print.
  uplevel 1 [list do_test $name [list execsql $sql] [list {*}$expected]]
}

proc do_catchsql_test {name sql expected} {
  uplevel 1 [list do_test $name [list catchsql $sql] [list {*}$expected]]
}

proc do_eqp_test {name sql pattern} {
  set plan [uplevel 1 [list db eval "EXPLAIN QUERY PLAN $sql"]]
  test_result $name [string match $pattern $plan] $plan $pattern
}

# do_faultsim-style helper: expect a Tcl error matching a glob.
proc do_error_test {name script pattern} {
  set rc [catch {uplevel 1 $script} msg]
  test_result $name [expr {$rc && [string match $pattern $msg]}] \
      "rc=$rc $msg" $pattern
}

# The running SQLite's version (the library the Tcl interface uses).
set ::sqlite_version [sqlite3 -version]
set ::nSkip 0

# True if the running SQLite is version V (like 3.38.0) or later.
proc sqlite_at_least {v} {
  expr {[package vcompare $::sqlite_version $v] >= 0}
}

# Run a test command (do_test NAME ..., do_execsql_test NAME ...) only on
# SQLite VERSION or later; before, count it as skipped, saying WHY (the
# feature it needs; docs/compatibility.md lists them all).
proc needs_sqlite {version why args} {
  if {[sqlite_at_least $version]} {
    uplevel 1 $args
  } else {
    incr ::nSkip
    puts "- [lindex $args 1] skipped on SQLite $::sqlite_version: $why\
          (needs $version)"
  }
}

proc finish_test {} {
  catch {db close}
  set file [file tail [info script]]
  if {$file eq ""} { set file [file tail $::argv0] }
  if {$::nSkip} {
    puts "$file: $::nPass passed, $::nFail failed, $::nSkip skipped"
  } else {
    puts "$file: $::nPass passed, $::nFail failed"
  }
  if {$::nFail} {
    puts "$file: failed: $::failList"
    exit 1
  }
  exit 0
}
