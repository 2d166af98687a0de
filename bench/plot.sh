#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PNG plots of the PSOCK benchmarks, on the host after "make bench":
#   plot.sh RESULTS_DIR
# reads psock_rtt.dat and psock_paths.dat (written by psock_rtt.sh and
# psock_paths.sh in the VM) and writes psock_rtt.png and psock_paths.png
# beside them.  Needs gnuplot (tools/testing/vm/setup.sh installs it).
dir=${1:?usage: plot.sh RESULTS_DIR}
command -v gnuplot >/dev/null ||
	{ echo "plot.sh: gnuplot missing (apt-get install gnuplot-nox)" >&2; exit 1; }
rc=0

if [ -s "$dir/psock_rtt.dat" ]; then
	gnuplot <<EOF || rc=1
set terminal pngcairo size 800,560 font "sans,10"
set output "$dir/psock_rtt.png"
set title "PSOCK over one path of 100 Mbit/s, 40 ms RTT (C = 500 kB), 16 MiB"
set xlabel "subflows n"
set ylabel "Mbit/s"
set logscale x 2
set xtics ("1" 1, "2" 2, "4" 4, "8" 8)
set xrange [0.8:10]
set yrange [0:110]
set key below maxrows 4
set grid
plot for [row=0:3] "< awk '!/^#/ { print 1, \$4; print 2, \$5; print 4, \$6; print 8, \$7; print \"\"; print \"\" }' $dir/psock_rtt.dat" \
	index row using 1:2 with linespoints lw 2 pt 7 \
	title sprintf("PSOCK, buffers %s C", word("0.2 0.8 1.0 1.5", row + 1)), \
     for [row=0:3] "< awk '!/^#/ { print 1, \$3; print 8, \$3; print \"\"; print \"\" }' $dir/psock_rtt.dat" \
	index row using 1:2 with lines dt 2 lc row + 1 \
	title sprintf("TCP, buffers %s C", word("0.2 0.8 1.0 1.5", row + 1))
EOF
	echo "plot: $dir/psock_rtt.png"
fi

if [ -s "$dir/psock_paths.dat" ]; then
	gnuplot <<EOF || rc=1
set terminal pngcairo size 800,560 font "sans,10"
set output "$dir/psock_paths.png"
set title "Two paths of 10 and 30 Mbit/s, 16 MiB: fraction of the link sum"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set yrange [0:1.1]
set ylabel "throughput / (10 + 30 Mbit/s)"
set grid ytics
set key top right
plot "< awk '/^5\\\\/5ms/ { print \$2, \$3 }' $dir/psock_paths.dat" \
	using 2:xtic(1) title "both paths 5 ms", \
     "< awk '/^25\\\\/5ms/ { print \$2, \$3 }' $dir/psock_paths.dat" \
	using 2 title "10 Mbit/s path at 25 ms"
EOF
	echo "plot: $dir/psock_paths.png"
fi
exit $rc
