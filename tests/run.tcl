# run.tcl: run the whole suite and print one closing line
# "N passed, N failed" (exit status 1 on any failure).
#
#   tclsh tests/run.tcl [--ext PATH] [--sanitized] [--only-c]
#                       [--tcl-env NAME=VALUE]... [C-TESTS...]
#
# --tcl-env sets NAME in the environment of the *.test files' tclsh only,
# not in the C programs' (make asan: the sanitizer's runtime preloaded
# into the stock tclsh, and leak checking off there, where the C programs
# check their leaks).
#
# A file that skips tests a feature of a newer SQLite needs ends with
# "...: N passed, N failed, N skipped"; the skips are listed and counted
# on a line "N skipped (...)" before the closing line.
#
# Every tests/*.test file runs in its own tclsh process (a crash fails
# that file, it does not stop the run); each C test binary named on the
# command line runs too.  CUCKOO_JOBS of them run at once (default: the
# number of CPUs; CUCKOO_JOBS=1 runs them one after the other), the
# longest first: each one's CPU seconds are kept in build/run-times.txt
# (at the top of the tree, whatever the current directory) and the next
# run starts them in decreasing order of those, so that a long one does
# not start last and run alone at the end; one never timed there starts
# before them all, the C programs before the files.  Each
# must end its output with a line "...: N passed, N failed" (or
# "N passed, N failed").  Each is reported with its wall time and its CPU
# seconds (user+sys, from the shell's `times` after it ends), and the run
# ends with the total CPU seconds: CPU time hardly moves when the machine
# is busy, wall time does.

set testdir [file dirname [file normalize [info script]]]
set ext [file join [file dirname $testdir] cuckoo.so]
set ctests {}
set onlyC 0
set tclEnv {}
set sanitized 0
for {set i 0} {$i < [llength $argv]} {incr i} {
  set a [lindex $argv $i]
  switch -- $a {
    --ext { incr i; set ext [lindex $argv $i] }
    --only-c { set onlyC 1 }
    --tcl-env { incr i; lappend tclEnv [lindex $argv $i] }
    --sanitized { set sanitized 1 }
    default { lappend ctests $a }
  }
}
set env(CUCKOO_EXT) [file normalize $ext]
set env(CUCKOO_SANITIZED) $sanitized

set total_pass 0
set total_fail 0
set total_skip 0
set total_cpu 0.0
set failed {}

# The counts {passed failed skipped} of OUT's closing line, read by
# tests/counts.awk (the one parser every harness uses), or {} when OUT
# reports none.
proc closing_counts {out} {
  set awk [file join $::testdir counts.awk]
  if {[catch {exec awk -f $awk << $out} counts]} { return {} }
  return $counts
}

# The CPU seconds (user+sys) of the command, from the last line of OUT:
# the children's line of `times` that each command's shell prints last;
# that line is taken off OUT.  -1 when it is not there.
proc take_cpu {outVar} {
  upvar $outVar out
  set re {^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$}
  set cpu -1
  foreach who {children shell} {
    set out [string trimright $out]
    set nl [string last \n $out]
    if {![regexp $re [string range $out [expr {$nl + 1}] end] -> um us sm ss]} {
      break
    }
    if {$who eq "children"} { set cpu [expr {60 * $um + $us + 60 * $sm + $ss}] }
    set out [string range $out 0 [expr {$nl < 0 ? -1 : $nl - 1}]]
  }
  set out [string trimright $out]
  return $cpu
}

# Report one finished file or program: its counts, and its whole output
# when it failed.
proc report {label out rc ms} {
  global total_pass total_fail total_skip failed total_cpu
  set cpu [take_cpu out]
  if {$cpu >= 0} { set total_cpu [expr {$total_cpu + $cpu}] }
  set np 0; set nf 0; set ns 0
  set counts [closing_counts $out]
  if {[llength $counts] == 3} { lassign $counts np nf ns }
  if {![llength $counts] || ($rc && $nf == 0)} {
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
  set ::took($label) [expr {$cpu >= 0 ? $cpu : $ms / 1000.0}]
  set skip [expr {$ns ? [format " %4d skipped" $ns] : ""}]
  set cpus [expr {$cpu >= 0 ? [format "  %6.1fs cpu" $cpu] : ""}]
  puts [format "%-28s %6d passed %4d failed%s  %6.1fs%s" $label $np $nf $skip \
            [expr {$ms / 1000.0}] $cpus]
  flush stdout
}

# The files and programs run CUCKOO_JOBS at a time (default: the number
# of CPUs).  Each writes only under build/<its own name>, and its output is
# kept until it ends, so the lines of two never mix.
proc cpu_count {} {
  if {![catch {exec nproc} n] && [string is integer -strict $n] && $n > 0} {
    return $n
  }
  return 1
}
set jobs [expr {[info exists env(CUCKOO_JOBS)] ? $env(CUCKOO_JOBS)
                                               : [cpu_count]}]
if {![string is integer -strict $jobs] || $jobs < 1} { set jobs 1 }
set queue {}
set running 0

proc on_output {fh} {
  global out
  append out($fh) [read $fh]
  if {![eof $fh]} return
  fconfigure $fh -blocking 1
  set rc [catch {close $fh}]
  lassign $::job($fh) label t0
  unset ::job($fh)
  report $label $out($fh) $rc [expr {[clock milliseconds] - $t0}]
  unset out($fh)
  incr ::running -1
  start_next
}

proc start_next {} {
  global queue running jobs
  while {$running < $jobs && [llength $queue]} {
    set queue [lassign $queue label cmd]
    # sh runs the command, then prints its CPU times (take_cpu)
    set wrap [list sh -c {"$@"; rc=$?; echo; times; exit $rc} sh]
    set fh [open |[concat $wrap $cmd [list 2>@1]] r]
    fconfigure $fh -blocking 0 -translation binary
    set ::job($fh) [list $label [clock milliseconds]]
    set ::out($fh) ""
    fileevent $fh readable [list on_output $fh]
    incr running
  }
  if {$running == 0 && ![llength $queue]} { set ::alldone 1 }
}

# build/run-times.txt: one line "label seconds" per file or program, the
# CPU seconds of the last run that ran it.  Read as a dict; a line that
# is not of that form is ignored.
set timesFile [file join [file dirname $testdir] build run-times.txt]
proc read_times {} {
  set times [dict create]
  if {[catch {open $::timesFile r} fh]} { return $times }
  foreach line [split [read $fh] \n] {
    if {[regexp {^(\S+) ([0-9]+(?:\.[0-9]*)?)$} $line -> label secs]} {
      dict set times $label $secs
    }
  }
  close $fh
  return $times
}

# This run's seconds replace those of the same names; the file is written
# beside and renamed into place (runs of tests/compat/run.sh end at the
# same time).
proc write_times {} {
  set times [read_times]
  foreach label [array names ::took] {
    dict set times $label [format %.1f $::took($label)]
  }
  file mkdir [file dirname $::timesFile]
  set tmp $::timesFile.[pid]
  set fh [open $tmp w]
  foreach label [lsort [dict keys $times]] {
    puts $fh "$label [dict get $times $label]"
  }
  close $fh
  file rename -force $tmp $::timesFile
}

set jobList {}
foreach c $ctests {
  lappend jobList [list [file tail $c] [list $c]]
}
if {!$onlyC} {
  foreach f [lsort [glob -nocomplain -directory $testdir *.test]] {
    lappend jobList [list [file tail $f] \
        [list env {*}$tclEnv [info nameofexecutable] $f]]
  }
}
set times [read_times]
set keyed {}
foreach j $jobList {
  set label [lindex $j 0]
  set secs [expr {[dict exists $times $label] ? [dict get $times $label] : 1e9}]
  lappend keyed [list $secs {*}$j]
}
# lsort is stable: the never timed keep the order above
foreach j [lsort -real -decreasing -index 0 $keyed] {
  lappend queue [lindex $j 1] [lindex $j 2]
}
set t_start [clock milliseconds]
start_next
if {$running} { vwait ::alldone }
if {[catch write_times err]} { puts "run.tcl: $::timesFile not written: $err" }
if {[llength $failed]} { puts "failed: $failed" }
if {$total_skip} { puts "$total_skip skipped (tests of features this SQLite lacks)" }
puts [format "cpu: %.1fs user+sys in all, %.1fs wall (%d at a time)" $total_cpu \
          [expr {([clock milliseconds] - $t_start) / 1000.0}] $jobs]
puts "$total_pass passed, $total_fail failed"
exit [expr {$total_fail ? 1 : 0}]
