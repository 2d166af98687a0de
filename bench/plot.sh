#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PNG plots of the PSOCK and AF_HICN benchmarks, on the host after "make
# bench":
#   plot.sh RESULTS_DIR
# reads psock_rtt.dat, psock_paths.dat, psock_window.dat, hicn_net.dat,
# hicn_relay.dat, psock_http.dat, psock_gw.dat and psock_rr.dat (written by
# the scripts of those names in the VM) and writes psock_rtt.png,
# psock_paths.png, psock_window.png, hicn_net.png, hicn_relay.png,
# psock_http.png, psock_gw.png and psock_rr.png beside them: each point or
# bar is the median of the runs,
# its error bar the smallest and the largest run.  psock_gw.png: the pair
# over direct TCP, throughput under loss and under reordering over the
# set-up's own lossless figure beside the seed's, and Jain's index by the
# number of flows.  Needs gnuplot (tools/testing/vm/setup.sh installs it).
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

if [ -s "$dir/psock_rr.dat" ]; then
	# One row per option: TCP, then PSOCK n=1, 2, 4 (median min max each);
	# the half-close set is in ms, not plotted.
	awk '!/^#/ && $1 != "halfclose" { k = $2 == "tcp" ? 0 : $3
		v[$1, k] = $4 " " $5 " " $6
		if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } }
	     END { for (i = 0; i < n; i++) {
			o = order[i]
			printf "\"%s\" %s %s %s %s\n", o, v[o, 0], v[o, 1],
			       v[o, 2], v[o, 4] } }' \
		"$dir/psock_rr.dat" > "$dir/psock_rr.rows"
	gnuplot <<EOF || rc=1
set terminal pngcairo size 800,480 font "sans,10"
set output "$dir/psock_rr.png"
set termoption noenhanced
set title "1 KiB request and 1 KiB answer on one connection, veth without delay\n(median and min-max of $(runs "$dir/psock_rr.dat") runs)"
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.8 border -1
set grid ytics
set key below reverse Left
set yrange [0:*]
set ylabel "exchanges/s"
f = "$dir/psock_rr.rows"
plot f using 2:3:4:xtic(1) title "TCP", \
     f using 5:6:7 title "PSOCK n=1", \
     f using 8:9:10 title "PSOCK n=2", \
     f using 11:12:13 title "PSOCK n=4"
EOF
	echo "plot: $dir/psock_rr.png"
fi

if [ -s "$dir/psock_gw.dat" ]; then
	# The bar charts' rows: two words of label, quoted, median min max.
	awk '$1 == "ratio" {
		split($2, v, "-")
		printf "\"%s\" \"%s\" %s %s %s\n", v[2] == "gw1" ? "path 1" : "2 paths",
		       v[1] == "none" ? "no limit" : "20 Mbit/s", $3, $4, $5 }' \
		"$dir/psock_gw.dat" > "$dir/psock_gw.ratio"
	awk '$1 == "norm" && $2 == "reorder" {
		l["direct"] = "\"direct\" \"TCP\""
		l["gw1"] = "\"pair,\" \"path 1\""
		l["gw2"] = "\"pair,\" \"2 paths\""
		l["tcp4"] = "\"4 TCP,\" \"path 1\""
		l["seedA"] = "\"seed:\" \"TCPS. A\""
		l["seedK"] = "\"seed:\" \"kernel\""
		printf "%s %s %s %s\n", l[$3], $4, $5, $6 }' \
		"$dir/psock_gw.dat" > "$dir/psock_gw.reorder"
	gnuplot <<EOF || rc=1
set terminal pngcairo size 1100,950 font "sans,10"
set output "$dir/psock_gw.png"
set termoption noenhanced
set multiplot layout 2,2 title "psock-gw pair (4 streams) and direct TCP, netem 2 ms each way\n(median and min-max of $(runs "$dir/psock_gw.dat") runs)"
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set grid ytics
unset key
set title "pair / direct TCP on path 1 (goals: 0.9 on path 1, 1.5 on 2 paths)"
set ylabel "throughput ratio"
set yrange [0:1.7<*]
set arrow 1 from graph 0, first 0.9 to graph 1, first 0.9 nohead dt 2 lc rgb "gray40"
set arrow 2 from graph 0, first 1.5 to graph 1, first 1.5 nohead dt 2 lc rgb "gray40"
lab = 'xtic(stringcolumn(1)."\\n".stringcolumn(2))'
plot "$dir/psock_gw.ratio" using 3:4:5:@lab with histogram lc 1
unset arrow
set title "loss on both paths, each way, 20 Mbit/s"
set ylabel "throughput / own lossless"
set xlabel "netem loss %"
set logscale x
set xtics ("0.1" 0.1, "1" 1, "5" 5)
set xrange [0.07:7]
set yrange [0:1.25]
set grid xtics ytics
set key below horizontal maxcols 3
sel(k) = sprintf("< awk '\$1 == \"norm\" && \$2 != \"reorder\" && \$3 == \"%s\"' $dir/psock_gw.dat", k)
plot sel("direct") using 2:4:5:6 with yerrorlines lw 2 pt 7 lc 1 title "direct TCP", \
     sel("gw1") using 2:4:5:6 with yerrorlines lw 2 pt 7 lc 2 title "pair, path 1", \
     sel("gw2") using 2:4:5:6 with yerrorlines lw 2 pt 7 lc 3 title "pair, 2 paths", \
     sel("seedA") using 2:4 with linespoints dt 2 pt 6 lc 4 title "seed: TCPSpeaker side A", \
     sel("seedK") using 2:4 with linespoints dt 2 pt 6 lc 7 title "seed: kernel TCP"
unset logscale x
unset xlabel
set xtics autofreq
set autoscale x
set grid noxtics
unset key
set bmargin 4
set title "10% reordering (netem + tbf, 20 Mbit/s)"
set ylabel "throughput / own in-order"
set yrange [0:1.25]
set arrow 1 from graph 0, first 0.9 to graph 1, first 0.9 nohead dt 2 lc rgb "gray40"
plot "$dir/psock_gw.reorder" using 3:4:5:@lab with histogram lc 2
unset arrow
set title "fairness: N flows at once, 20 Mbit/s each path (goal: 0.95)"
set ylabel "Jain's index over the flows"
set xlabel "flows N"
set logscale x 2
set xtics ("1" 1, "2" 2, "4" 4, "8" 8, "16" 16)
set xrange [0.8:20]
set yrange [0.9:1.01]
set grid xtics ytics
set key bottom left inside vertical
set arrow 1 from graph 0, first 0.95 to graph 1, first 0.95 nohead dt 2 lc rgb "gray40"
jsel(k) = sprintf("< awk '\$1 == \"jain\" && \$3 == \"%s\"' $dir/psock_gw.dat", k)
plot jsel("direct") using 2:4:5:6 with yerrorlines lw 2 pt 7 lc 1 title "direct TCP (path 1)", \
     jsel("local") using 2:4:5:6 with yerrorlines lw 2 pt 7 lc 2 title "TCP sent from pgwb-i (path 1)", \
     jsel("gw2") using 2:4:5:6 with yerrorlines lw 2 pt 7 lc 3 title "pair, 2 paths"
unset multiplot
EOF
	echo "plot: $dir/psock_gw.png"
fi
exit $rc
