# run.tcl: run the whole suite and print one closing line
# "N passed, N failed" (exit status 1 on any failure).
#
#   tclsh tests/run.tcl [--ext PATH] [--sanitized] [--only-c] [C-TESTS...]
#
# A file that skips tests a feature of a newer SQLite needs ends with
# "...: N passed, N failed, N skipped"; the skips are listed and counted
# on a line "N skipped (...)" before the closing line.
#
# Every tests/*.test file runs in its own tclsh process (a crash fails
# that file, it does not stop the run); each C test binary named on the
# command line runs too.  Each must end its output with a line
# "...: N passed, N failed" (or "N passed, N failed").

set testdir [file dirname [file normalize [info script]]]
set ext [file join [file dirname $testdir] cuckoo.so]
set ctests {}
set onlyC 0
set sanitized 0
for {set i 0} {$i < [llength $argv]} {incr i} {
  set a [lindex $argv $i]
  switch -- $a {
    --ext { incr i; set ext [lindex $argv $i] }
    --only-c { set onlyC 1 }
    --sanitized { set sanitized 1 }
    default { lappend ctests $a }
  }
}
set env(CUCKOO_EXT) [file normalize $ext]
set env(CUCKOO_SANITIZED) $sanitized

set total_pass 0
set total_fail 0
set total_skip 0
set failed {}

proc run_one {label cmd} {
  global total_pass total_fail total_skip failed
  set t0 [clock milliseconds]
  set rc [catch {exec {*}$cmd 2>@1} out opts]
  set ms [expr {[clock milliseconds] - $t0}]
  set np 0; set nf 0; set ns 0; set found 0
  foreach line [split $out \n] {
    if {[regexp {(\d+) passed, (\d+) failed(?:, (\d+) skipped)?} $line -> \
             p f s]} {
      set np $p; set nf $f; set found 1
      if {$s ne ""} { set ns $s }
    }
  }
  if {!$found || ($rc && $nf == 0)} {
    # crashed or exited without a count: one failure for the file
    incr nf
  }
  incr total_pass $np
  incr total_fail $nf
  incr total_skip $ns
  if {$nf} {
    lappend failed $label
    puts $out
  } elseif {$ns} {
    foreach line [split $out \n] {
      if {[string match "- * skipped *" $line]} { puts $line }
    }
  }
  set skip [expr {$ns ? [format " %4d skipped" $ns] : ""}]
  puts [format "%-28s %6d passed %4d failed%s  %6.1fs" $label $np $nf $skip \
            [expr {$ms / 1000.0}]]
}

if {!$onlyC} {
  foreach f [lsort [glob -nocomplain -directory $testdir *.test]] {
    run_one [file tail $f] [list [info nameofexecutable] $f]
  }
}
foreach c $ctests {
  run_one [file tail $c] [list $c]
}
if {[llength $failed]} { puts "failed: $failed" }
if {$total_skip} { puts "$total_skip skipped (tests of features this SQLite lacks)" }
puts "$total_pass passed, $total_fail failed"
exit [expr {$total_fail ? 1 : 0}]
