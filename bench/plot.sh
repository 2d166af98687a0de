#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PNG plots of the PSOCK and AF_HICN benchmarks, on the host after "make
# bench":
#   plot.sh RESULTS_DIR
# reads psock_rtt.dat, psock_paths.dat, psock_window.dat, hicn_net.dat,
# hicn_relay.dat and psock_http.dat (written by the scripts of those names
# in the VM) and writes psock_rtt.png, psock_paths.png, psock_window.png,
# hicn_net.png, hicn_relay.png and psock_http.png beside them: each point or bar is the median of the runs, its error bar
# the smallest and the largest run.  Needs gnuplot
# (tools/testing/vm/setup.sh installs it).
dir=${1:?usage: plot.sh RESULTS_DIR}
command -v gnuplot >/dev/null ||
	{ echo "plot.sh: gnuplot missing (apt-get install gnuplot-nox)" >&2; exit 1; }
rc=0

# runs FILE: the number of runs behind each figure ("# runs R").
runs() {
	awk '/^# runs / { print $3; exit }' "$1"
}

if [ -s "$dir/psock_rtt.dat" ]; then
	gnuplot <<EOF || rc=1
set terminal pngcairo size 800,600 font "sans,10"
set output "$dir/psock_rtt.png"
set title "PSOCK (n subflows) and n TCP connections over one path of 100 Mbit/s, 40 ms RTT\n(C = 500 kB); median and min-max of $(runs "$dir/psock_rtt.dat") runs"
set xlabel "subflows or connections n"
set ylabel "Mbit/s"
set logscale x 2
set xtics ("1" 1, "2" 2, "4" 4, "8" 8)
set xrange [0.8:10]
set yrange [0:110]
set key below maxrows 4
set grid
F = "0.2 0.8 1.0 1.5"
sel(f, t) = sprintf("< awk '\$1 == \"%s\" && \$3 == \"%s\"' $dir/psock_rtt.dat", f, t)
plot for [i=1:4] sel(word(F, i), "psock") using 4:5:6:7 \
	with yerrorlines lw 2 pt 7 lc i \
	title sprintf("PSOCK, buffers %s C", word(F, i)), \
     for [i=1:4] sel(word(F, i), "tcp") using 4:5:6:7 \
	with yerrorlines dt 2 pt 6 lc i \
	title sprintf("n TCP connections, buffers %s C", word(F, i))
EOF
	echo "plot: $dir/psock_rtt.png"
fi

if [ -s "$dir/psock_paths.dat" ]; then
	gnuplot <<EOF || rc=1
set terminal pngcairo size 800,560 font "sans,10"
set output "$dir/psock_paths.png"
set title "Two paths of 10 and 30 Mbit/s: fraction of the link sum\n(median and min-max of $(runs "$dir/psock_paths.dat") runs)"
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set yrange [0:1.1]
set ylabel "throughput / (10 + 30 Mbit/s)"
set grid ytics
set key top right
plot "< awk '\$1 == \"5/5ms\"' $dir/psock_paths.dat" \
	using 3:4:5:xtic(2) title "both paths 5 ms", \
     "< awk '\$1 == \"25/5ms\"' $dir/psock_paths.dat" \
	using 3:4:5 title "10 Mbit/s path at 25 ms"
EOF
	echo "plot: $dir/psock_paths.png"
fi

if [ -s "$dir/psock_window.dat" ]; then
	# "label" median min max, the labels quoted for xtic().
	awk '!/^#/ {
		l = "PSOCK, 4 MiB window"
		if ($1 == "tcp")
			l = "TCP, 32 MiB buffers"
		else if ($1 == "psock16")
			l = "PSOCK, 16 MiB window"
		printf "\"%s\" %s %s %s\n", l, $2, $3, $4 }' \
		"$dir/psock_window.dat" > "$dir/psock_window.plot"
	gnuplot <<EOF || rc=1
set terminal pngcairo size 800,560 font "sans,10"
set output "$dir/psock_window.png"
set title "One path of 60 Mbit/s, 1 s RTT (BDP 7.5 MB): TCP, and PSOCK (n=4) by the window its receiver offers\n(median and min-max of $(runs "$dir/psock_window.dat") runs)"
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set yrange [0:70]
set ylabel "Mbit/s"
set grid ytics
unset key
plot "$dir/psock_window.plot" using 2:3:4:xtic(1)
EOF
	echo "plot: $dir/psock_window.png"
fi
if [ -s "$dir/hicn_net.dat" ]; then
	gnuplot <<EOF || rc=1
set terminal pngcairo size 900,480 font "sans,10"
set output "$dir/hicn_net.png"
set termoption noenhanced
set multiplot layout 1,2 title "AF_HICN and TCP across a veth pair, 100 Mbit/s, 2 ms each way\n(median and min-max of $(runs "$dir/hicn_net.dat") runs)"
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set grid ytics
set key top right
set yrange [0:*]
set title "throughput"
set ylabel "Mbit/s"
plot "< awk '\$2 == \"0%\"' $dir/hicn_net.dat" using 3:4:5:xtic(1) title "no loss", \
     "< awk '\$2 == \"1%\"' $dir/hicn_net.dat" using 3:4:5 title "1% loss"
set title "normalised to the protocol's own lossless median"
set ylabel "throughput / own lossless"
set yrange [0:1.2]
plot "< awk '\$2 == \"0%\"' $dir/hicn_net.dat" using 6:7:8:xtic(1) title "no loss", \
     "< awk '\$2 == \"1%\"' $dir/hicn_net.dat" using 6:7:8 title "1% loss"
unset multiplot
EOF
	echo "plot: $dir/hicn_net.png"
fi

if [ -s "$dir/hicn_relay.dat" ]; then
	gnuplot <<EOF || rc=1
set terminal pngcairo size 900,480 font "sans,10"
set output "$dir/hicn_relay.png"
set termoption noenhanced
set multiplot layout 1,2 title "8 consumers behind one relay, the same object each: AF_HICN and TCP\n(median and min-max of $(runs "$dir/hicn_relay.dat") runs)"
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set grid ytics
unset key
set yrange [0:*]
set title "time until all 8 have their copy"
set ylabel "s"
plot "$dir/hicn_relay.dat" using 2:3:4:xtic(1)
set title "bytes the producer's host sent"
set ylabel "MiB"
plot "$dir/hicn_relay.dat" using 5:6:7:xtic(1)
unset multiplot
EOF
	echo "plot: $dir/hicn_relay.png"
fi

if [ -s "$dir/psock_http.dat" ]; then
	gnuplot <<EOF || rc=1
set terminal pngcairo size 640,480 font "sans,10"
set output "$dir/psock_http.png"
set termoption noenhanced
set title "$(awk '/^# runs / { print $5; exit }' "$dir/psock_http.dat") sequential HTTP GETs from nginx, a connection each\n(median and min-max of $(runs "$dir/psock_http.dat") runs)"
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set grid ytics
unset key
set yrange [0:*]
set ylabel "s"
plot "< awk '\$1 != \"wait\" && !/^#/' $dir/psock_http.dat" using 2:3:4:xtic(1)
EOF
	echo "plot: $dir/psock_http.png"
fi
exit $rc
