# occupancy.gp: the throughput-versus-occupancy figures (the paper's
# insert and lookup plots) from the data files occupancy_bench writes.
# Run from the repository root by `make figure`:
#   gnuplot -e "datadir='build/bench'" -e "outdir='docs/img'" docs/img/occupancy.gp
# Each data file occupancy_<filter>_<variant>.dat has the columns:
# occupancy %, insert M/s, lookup 0% positive M/s, lookup 100% positive M/s.
if (!exists("datadir")) datadir = 'build/bench'
if (!exists("outdir")) outdir = 'docs/img'
f(filter, variant) = sprintf("%s/occupancy_%s_%s.dat", datadir, filter, variant)
set terminal pngcairo size 1200,520 font ",11"
set grid
set xrange [0:100]
set xlabel "occupancy (items / slots), %"
set key bottom left
set yrange [0:*]

set output outdir.'/occupancy_insert.png'
set multiplot layout 1,2 title "Insert throughput as the filter fills (b = 4, hash included; 12-bit plain, 13-bit semi-sorted)"
set ylabel "million inserts per second"
set title "L2-sized filter (768 KB)"
plot f("L2", "plain") using 1:2 with linespoints pt 7 lc rgb "#1f77b4" title "plain", \
     f("L2", "semisort") using 1:2 with linespoints pt 5 lc rgb "#d62728" title "semi-sorted"
set title "192 MB filter"
plot f("192MB", "plain") using 1:2 with linespoints pt 7 lc rgb "#1f77b4" title "plain", \
     f("192MB", "semisort") using 1:2 with linespoints pt 5 lc rgb "#d62728" title "semi-sorted"
unset multiplot

set output outdir.'/occupancy_lookup.png'
set multiplot layout 1,2 title "Lookup throughput as the filter fills (b = 4, hash included; 12-bit plain, 13-bit semi-sorted)"
set ylabel "million lookups per second"
set title "L2-sized filter (768 KB)"
plot f("L2", "plain") using 1:3 with linespoints pt 7 lc rgb "#1f77b4" title "plain, 0% positive", \
     f("L2", "plain") using 1:4 with linespoints pt 6 dt 2 lc rgb "#1f77b4" title "plain, 100% positive", \
     f("L2", "semisort") using 1:3 with linespoints pt 5 lc rgb "#d62728" title "semi-sorted, 0% positive", \
     f("L2", "semisort") using 1:4 with linespoints pt 4 dt 2 lc rgb "#d62728" title "semi-sorted, 100% positive"
set title "192 MB filter"
plot f("192MB", "plain") using 1:3 with linespoints pt 7 lc rgb "#1f77b4" title "plain, 0% positive", \
     f("192MB", "plain") using 1:4 with linespoints pt 6 dt 2 lc rgb "#1f77b4" title "plain, 100% positive", \
     f("192MB", "semisort") using 1:3 with linespoints pt 5 lc rgb "#d62728" title "semi-sorted, 0% positive", \
     f("192MB", "semisort") using 1:4 with linespoints pt 4 dt 2 lc rgb "#d62728" title "semi-sorted, 100% positive"
unset multiplot
