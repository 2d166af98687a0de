# SPDX-License-Identifier: GPL-2.0
#
# Sourced by psock_paths.sh and psock_rtt.sh: repetitions and their
# statistics.  Every figure is measured BENCH_REPS times (default 5),
# interleaved: run r measures every configuration once, in turn, before
# run r + 1 starts, so a slow drift of the VM touches all of them alike.
# record() keeps each value, stat() gives a figure's median and its
# spread, the smallest and the largest value (with 5 runs the interquartile
# range says little more).  Ratios are taken between medians.
#
# BENCH_SIZE (bytes) replaces the size of each transfer, for quick runs
# while developing; make bench passes both as words of SUITES (run.sh).

REPS=${BENCH_REPS:-5}
case $REPS in
'' | *[!0-9]* | 0) echo "BENCH_REPS must be a positive number" >&2; exit 1 ;;
esac
RESULTS=$(mktemp)

# record KEY VALUE: one run's figure, or FAILED.
record() {
	echo "$1 $2" >> "$RESULTS"
}

# stat KEY: "MEDIAN MIN MAX RUNS" of the figure, or FAILED when a run of
# it failed (or none was recorded).
stat() {
	awk -v k="$1" '
	$1 == k { if ($2 == "FAILED") bad = 1; else v[++n] = $2 + 0 }
	END {
		if (bad || !n) { print "FAILED"; exit }
		for (i = 2; i <= n; i++)	# insertion sort, n is small
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		print m, v[1], v[n], n
	}' "$RESULTS"
}

# spread STAT [DECIMALS]: "12.1 [11.9-12.3]" (median [min-max], one
# decimal unless DECIMALS says otherwise).
spread() {
	local d=${2:-1}
	# shellcheck disable=SC2086
	set -- $1
	if [ "$1" = FAILED ]; then
		echo FAILED
		return
	fi
	printf "%.${d}f [%.${d}f-%.${d}f]\n" "$1" "$2" "$3"
}

# run KEY CMD...: one run of CMD (which prints the figure) recorded under
# KEY, or FAILED when CMD fails.
run() {
	local k=$1 m
	shift
	if m=$("$@"); then
		record "$k" "$m"
	else
		echo "$(basename "$0"): $k failed" >&2
		record "$k" FAILED
	fi
}

# listening NETNS PORT: wait (5 s at most) until a TCP socket listens on
# PORT in NETNS.
listening() {
	local i
	for i in $(seq 50); do
		ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}
