#!/bin/sh
# The thread benchmark (issue 10): bench/guest/tbench.c, static with
# musl, natively, inside vkernel on -n 1 and -n 2 and under User-Mode
# Linux (uniprocessor) on the same busybox initramfs; one table in
# build/tbench.table.  Figures are reported, never asserted.  A figure
# that cannot be had inside (no threads yet: pthread_create fails) is
# "n/a"; only a native or vkernel run that fails, prints nothing, hangs
# or crashes makes the script fail (UML's failure is noted: it panics
# on some hosts, "ptrace set fp regs failed", whatever it runs).
#
#   BUILD=build bench/threadbench.sh
#
# Environment: UML (the UML kernel, default linux.uml; its column stays
# empty without it).
set -eu
build=${BUILD:-build}
stage=$build/tbench-root
cpio=$build/tbench.cpio
out=$build/tbench-out/t
table=$build/tbench.table
limit=240	# seconds for one whole tbench run
failed=
tests="thread-create+join futex-round-trip thread-pipe-round-trip cpu-job-1 cpu-job-2-threads cpu-job-2-processes speedup-2-threads speedup-2-processes"

[ -x "$build/vkernel" ] || { echo "threadbench: $build/vkernel missing" >&2; exit 1; }
command -v musl-gcc >/dev/null || {
	if [ "$(id -u)" = 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq musl-tools >/dev/null
	else echo "threadbench: needs musl-gcc: apt-get install musl-tools" >&2; exit 1; fi
}
uml=${UML:-linux.uml}
command -v "$uml" >/dev/null || uml=

rm -rf "$stage" "$build/tbench-out" && mkdir -p "$stage/t" "$build/tbench-out"
musl-gcc -static -pthread -O2 -Wall -Wextra -Werror -o "$stage/t/tbench" bench/guest/tbench.c
tools/mkinitramfs "$cpio" "$stage"
cpio=$(cd "$(dirname "$cpio")" && pwd)/$(basename "$cpio")
load0=$(cut -d" " -f1-3 /proc/loadavg)

# run COLUMN command...: one tbench run, its "name value" lines in $out.COLUMN
run() {
	col=$1; shift
	st=0
	timeout -k 5 $limit "$@" < /dev/null > "$out.$col.raw" 2> "$out.$col.err" || st=$?
	tr -d '\r' < "$out.$col.raw" | grep -E '^[a-z0-9+-]+ ([0-9.]+|n/a)$' > "$out.$col" || true
	if ! grep -q '^speedup-2-processes ' "$out.$col"; then
		echo "threadbench: $col: no figures (status $st): see $out.$col.raw, $out.$col.err" >&2
		if [ "$col" = uml ]; then
			echo "# UML gave no figures (status $st): see $out.$col.raw" >> "$out.$col.raw"
		else
			failed="$failed $col(status-$st)"
		fi
	elif [ "$col" = native ] && grep -q 'n/a$' "$out.$col"; then
		failed="$failed native-n/a"
	fi
	echo "threadbench: $col done (status $st)" >&2
}
run native "$stage/t/tbench"
for n in 1 2; do
	run vk-n$n "$build/vkernel" -n $n -m 512m --initramfs "$cpio" -- /t/tbench
done
[ -z "$uml" ] || run uml "$uml" mem=512M initrd="$cpio" rdinit=/t/tbench \
    con0=fd:0,fd:1 con=null quiet

cell() {
	awk -v t="$2" '$1 == t { print $2 }' "$out.$1" 2>/dev/null | grep . || echo -
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b + 0 == 0) print "-"; else printf "%.2fx", a / b }'
}
{
	echo "thread benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -r), $(nproc) CPUs;"
	echo "host load average before: $load0, after: $(cut -d' ' -f1-3 /proc/loadavg)"
	printf '%-28s %9s %9s %9s %9s\n' "" native "vk -n 1" "vk -n 2" UML
	for t in $tests; do
		case $t in
		cpu-*) name="$t (ms)" ;;
		speedup-*) name="$t (x)" ;;
		*) name="$t (us)" ;;
		esac
		printf '%-28s %9s %9s %9s %9s\n' "$name" "$(cell native $t)" "$(cell vk-n1 $t)" \
		    "$(cell vk-n2 $t)" "$(cell uml $t)"
	done
	for t in cpu-job-2-threads cpu-job-2-processes; do
		echo "$t: -n 2 over -n 1: $(ratio "$(cell vk-n1 $t)" "$(cell vk-n2 $t)") (target 1.8x)"
	done
	for f in "$out".*.raw; do
		n=${f#$out.}
		tr -d '\r' < "$f" | sed -n "s|^# |note (${n%.raw}): |p"
	done
	echo "round trips: one wake or byte each way; cpu-job: a fixed job once, on two"
	echo "threads at once, in two processes at once; speedup: 2 x one / two at once."
	echo "n/a: the figure cannot be had there (inside: until threads work)."
	[ -n "$uml" ] || echo "UML not installed: apt-get install -y user-mode-linux"
	[ -z "$failed" ] || echo "FAILED:$failed (see $build/tbench-out/)"
} > "$table"
cat "$table"
[ -z "$failed" ]
