# fpr_vs_bits.gp: the space/false-positive figure (the paper's Figure 4
# style) from the data speed_bench --fpr writes.  Run from the repository
# root by `make figure`:
#   gnuplot -e "datafile='build/bench/fpr_vs_bits.dat'" docs/img/fpr_vs_bits.gp
# Columns of the data file: error_rate, plain f, plain bits/item, plain
# measured FPR, semisort f, semisort bits/item, semisort measured FPR,
# Bloom bits, paper CF bits, paper ss-CF bits.
if (!exists("datafile")) datafile = 'build/bench/fpr_vs_bits.dat'
if (!exists("outfile")) outfile = 'docs/img/fpr_vs_bits.png'
set terminal pngcairo size 960,640 font ",11"
set output outfile
set title "Measured false-positive rate vs space (b = 4, filled to capacity)"
set xlabel "bits per item"
set ylabel "false-positive rate"
set logscale y
set format y "10^{%L}"
set xrange [3:28]
set yrange [1e-6:0.3]
set grid
set key top right
alpha = 0.955
plot 2**(-x/1.44) with lines lw 2 dt 2 lc rgb "#888888" \
       title "space-optimal Bloom filter: 1.44 log2(1/ε) bits", \
     2**(3 - alpha*x) with lines lw 1 dt 3 lc rgb "#1f77b4" \
       title "paper: cuckoo filter, (log2(1/ε) + 3)/0.955 bits", \
     2**(2 - alpha*x) with lines lw 1 dt 3 lc rgb "#d62728" \
       title "paper: semi-sorted, (log2(1/ε) + 2)/0.955 bits", \
     2**(-x) with lines lw 1 dt 1 lc rgb "#cccccc" \
       title "information-theoretic bound: log2(1/ε) bits", \
     datafile using 3:4 with linespoints pt 7 ps 1.2 lc rgb "#1f77b4" \
       title "cuckoo, plain (measured)", \
     datafile using 6:7 with linespoints pt 5 ps 1.2 lc rgb "#d62728" \
       title "cuckoo, semi-sorted (measured)"
