#!/bin/sh
# The SMP benchmark: two CPU-bound workers of bench/guest/smpbench.c, as
# processes and as threads, natively on one host core (taskset) and on
# all of them, and inside vkernel (as init) on -n 1 and -n 2; the
# speed-up is the 1-CPU time over the 2-CPU time.  Columns alternate
# within each run, so that the host's load drifts over all of them
# alike; the table (build/smpbench.table) gives medians and the spread.
# Figures are reported, never asserted; a run that crashes, hangs (killed
# after 120 s) or prints no figure is named in the table and makes the
# script fail after printing it.  A kernel that cannot make threads gets
# "-" and the reason (the thread figures are a hook until it can).
#
#   BUILD=build bench/smpbench.sh
#
# Environment: SMPBENCH_RUNS (runs per column, default 5), SMPBENCH_ITER
# (rounds per worker, default 300000000: about 0.5 s of a host core),
# SMPBENCH_VKFLAGS (more vkernel options, e.g. "-l density").
set -eu
build=${BUILD:-build}
runs=${SMPBENCH_RUNS:-5}
iter=${SMPBENCH_ITER:-300000000}
vkflags=${SMPBENCH_VKFLAGS:-}
stage=$build/smpbench-root
cpio=$build/smpbench.cpio
out=$build/smpbench-out
table=$build/smpbench.table
limit=120
failed=

[ -x "$build/vkernel" ] || { echo "smpbench: $build/vkernel missing: make $build/vkernel" >&2; exit 1; }
command -v musl-gcc >/dev/null || { echo "smpbench: needs musl-gcc: apt-get install musl-tools" >&2; exit 1; }
rm -rf "$stage" "$out" && mkdir -p "$stage/t" "$out"
musl-gcc -static -O2 -pthread -Wall -Wextra -Werror -o "$stage/t/smpbench" bench/guest/smpbench.c
tools/mkinitramfs "$cpio" "$stage"
# One host core for the native 1-CPU column: the first we may use.
core=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
load0=$(cut -d" " -f1-3 /proc/loadavg)

# run COLUMN MODE command...: appends the wall time to $out/COLUMN.MODE,
# or records why the kernel cannot run MODE, or names the failure.
run() {
	col=$1 mode=$2; shift 2
	[ ! -f "$out/$col.$mode.unsupported" ] || return 0
	st=0
	timeout -k 5 $limit "$@" < /dev/null > "$out/raw" 2>> "$out/$col.$mode.err" || st=$?
	res=$(tr -d '\r' < "$out/raw")
	case $res in
	*"wall "*)
		echo "$res" | sed -n 's/^wall //p' >> "$out/$col.$mode" ;;
	*unsupported:*)
		echo "$res" | sed -n 's/^unsupported: //p' | head -1 > "$out/$col.$mode.unsupported" ;;
	*)
		echo "smpbench: $col $mode: no figure (status $st): see $out/$col.$mode.err" >&2
		failed="$failed $col-$mode(status-$st)" ;;
	esac
}

r=1
while [ $r -le "$runs" ]; do
	for mode in procs threads; do
		run native1 $mode taskset -c "$core" "$stage/t/smpbench" $mode 2 "$iter"
		run native2 $mode "$stage/t/smpbench" $mode 2 "$iter"
		for n in 1 2; do
			# shellcheck disable=SC2086
			run vk$n $mode "$build/vkernel" $vkflags -n $n -m 256m \
			    --initramfs "$cpio" -- /t/smpbench $mode 2 "$iter"
		done
	done
	echo "smpbench: run $r done" >&2
	r=$((r + 1))
done

# median COLUMN MODE, spread COLUMN MODE: of the wall times, or "-"
median() {
	sort -g "$out/$1.$2" 2>/dev/null |
	    awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'
}
spread() {
	sort -g "$out/$1.$2" 2>/dev/null |
	    awk '{ v[NR] = $1 } END { print NR ? v[1] "-" v[NR] : "-" }'
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.2fx", a / b }'
}
row() {
	name=$1 one=$2 two=$3 mode=$4
	note=
	for c in $one $two; do
		[ ! -f "$out/$c.$mode.unsupported" ] || note="  ($c: $(cat "$out/$c.$mode.unsupported"))"
	done
	printf '%-28s %7s %13s %7s %13s %8s%s\n' "$name" "$(median $one $mode)" \
	    "$(spread $one $mode)" "$(median $two $mode)" "$(spread $two $mode)" \
	    "$(ratio "$(median $one $mode)" "$(median $two $mode)")" "$note"
}

{
	echo "SMP benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -r), $(nproc) CPUs;"
	echo "two CPU-bound workers of $iter rounds each, wall seconds: median (min-max) of $runs runs;"
	echo "host load average before: $load0, after: $(cut -d' ' -f1-3 /proc/loadavg)"
	printf '%-28s %7s %13s %7s %13s %8s\n' "" "1 CPU" "(min-max)" "2 CPUs" "(min-max)" "speed-up"
	row "processes, native" native1 native2 procs
	row "processes, vkernel${vkflags:+ $vkflags}" vk1 vk2 procs
	row "threads, native" native1 native2 threads
	row "threads, vkernel${vkflags:+ $vkflags}" vk1 vk2 threads
	echo "native 1 CPU: taskset -c $core; vkernel: -n 1 and -n 2, each worker's"
	echo "guest on its own host core once -n 2; target: 1.8x or better on 2 cores."
	echo "User-Mode Linux is uniprocessor: its speed-up is 1x."
	[ -z "$failed" ] || echo "FAILED:$failed (see $out/)"
} > "$table"
cat "$table"
[ -z "$failed" ]
