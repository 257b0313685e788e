#!/bin/sh
# The kernel benchmark: bench/guest/kbench.c natively, inside vkernel in
# both placements and under User-Mode Linux booted on the same busybox
# initramfs, then boot to init's first line (bench/bootwatch), one table
# of medians in build/kbench.table. Figures are reported, never asserted;
# a run that crashes, hangs (killed after 240 s) or prints no figures is
# reported in the table and makes the script fail after printing it.
#
#   BUILD=build bench/kernbench.sh
#
# Environment: KBENCH_RUNS (whole kbench runs per column, default 1; each
# figure is already a median of 3 to 7 rounds), KBENCH_BOOTS (boots per
# column, default 5), UML (the UML kernel, default linux.uml), KBENCH_MIB
# (memory the first-touch test touches, default 256).
set -eu
build=${BUILD:-build}
runs=${KBENCH_RUNS:-1}
boots=${KBENCH_BOOTS:-5}
mib=${KBENCH_MIB:-256}
stage=$build/kbench-root
cpio=$build/kbench.cpio
out=$build/kbench-out/k
table=$build/kbench.table
marker="kbench-init: first line"
limit=400	# seconds for one whole kbench run (UML unpinned, loaded: ~200)
failed=	# what failed, for the table and the exit status
tests="getpid clock_gettime fork+exit+wait fork+exec+wait first-touch-per-page pipe-round-trip futex-round-trip futex-round-trip-threads thread-create+join mmap+touch-per-mapping munmap-per-mapping shell-macro"

for f in "$build/vkernel" "$build/bootwatch"; do
	[ -x "$f" ] || { echo "kernbench: $f missing: make $f" >&2; exit 1; }
done
command -v musl-gcc >/dev/null || {
	if [ "$(id -u)" = 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq musl-tools >/dev/null
	else echo "kernbench: needs musl-gcc: apt-get install musl-tools" >&2; exit 1; fi
}

# User-Mode Linux: Debian's user-mode-linux ships /usr/bin/linux.uml.
uml=${UML:-linux.uml}
uml_missing=
if ! command -v "$uml" >/dev/null; then
	if [ -z "${UML:-}" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "kernbench: installing user-mode-linux" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq user-mode-linux >/dev/null 2>&1 ||
		    { apt-get update -qq >/dev/null 2>&1 &&
		      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq user-mode-linux >/dev/null 2>&1; } || true
	fi
	command -v "$uml" >/dev/null || uml_missing=1
fi
# Installed but unable to run a program here: say why, leave it out.
# UML 6.1 cannot set its processes' FPU state on a host whose XSAVE area
# is larger than the one it was built for (AMX: see bench/umlxstate.c);
# then it runs with bench/umlxstate.so preloaded, and the table says so.
uml_why= uml_env= uml_note=
if [ -z "$uml_missing" ] && ! uml_why=$(bench/umlcheck.sh "$uml" "$build/kbench-umlcheck"); then
	case $uml_why in
	*"ptrace set fp regs failed, errno = 14"*)
		gcc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$build/umlxstate.so" \
		    bench/umlxstate.c -ldl
		so=$(cd "$build" && pwd)/umlxstate.so
		if UML_PRELOAD=$so bench/umlcheck.sh "$uml" "$build/kbench-umlcheck" >/dev/null; then
			uml_env="LD_PRELOAD=$so"
			uml_note="UML runs with bench/umlxstate.so preloaded: alone it fails here ($uml_why), its 6.1 ptrace SETREGSET is shorter than this host's XSAVE area"
			uml_why=
		fi ;;
	esac
	if [ -n "$uml_why" ]; then
		echo "kernbench: UML: unavailable ($uml_why): its column stays empty" >&2
		uml_missing=1
	fi
fi
if [ -n "$uml_missing" ] && [ -z "$uml_why" ]; then
	cat >&2 <<EOF
kernbench: User-Mode Linux ($uml) is not installed, so its column stays
kernbench: empty. Install it with (as root):
kernbench:     apt-get update && apt-get install -y user-mode-linux
kernbench: and run make bench again.
EOF
fi

# The guest programs, static with musl, and the busybox root around them.
rm -rf "$stage" && mkdir -p "$stage/t"
for p in kbench exit0 hello; do
	musl-gcc -static -O2 -Wall -Wextra -Werror -o "$stage/t/$p" "bench/guest/$p.c"
done
# the shell macro, with the same busybox's applets natively and inside
cp bench/guest/macro.sh "$stage/t/"
mkdir -p "$stage/t/bb"
for a in sh md5sum mkdir rm; do ln -s /bin/busybox "$stage/t/bb/$a"; done
tools/mkinitramfs "$cpio" "$stage"
rm -rf "$build/kbench-out" && mkdir -p "$build/kbench-out"
load0=$(cut -d" " -f1-3 /proc/loadavg)
cpio=$(cd "$(dirname "$cpio")" && pwd)/$(basename "$cpio")

# run COLUMN RUN command...: one kbench run, its "name value" lines in
# $out.COLUMN.RUN; a failure is reported and leaves that run out.
run() {
	col=$1 r=$2; shift 2
	f=$out.$col.$r
	st=0
	timeout -k 5 $limit "$@" < /dev/null > "$f.raw" 2> "$f.err" || st=$?
	tr -d '\r' < "$f.raw" | grep -E '^[a-z_+-]+ [0-9.]+$' > "$f" || true
	for t in $tests; do
		if ! grep -q "^$t " "$f"; then
			echo "kernbench: $col run $r: no '$t' line (status $st): see $f.raw, $f.err" >&2
			failed="$failed $col-run-$r(status-$st)"
			break
		fi
	done
	echo "kernbench: $col run $r done (status $st)" >&2
}

r=1
while [ $r -le "$runs" ]; do
	run native $r "$stage/t/kbench" "$mib"
	for l in latency density; do
		run $l $r "$build/vkernel" -l $l -m 512m --initramfs "$cpio" -- /t/kbench "$mib"
	done
	# UML pinned to one core, its best here, and as the host places it
	[ -n "$uml_missing" ] || run umlpin $r taskset -c 0 env $uml_env "$uml" \
	    mem=512M initrd="$cpio" rdinit=/t/kbench con0=fd:0,fd:1 con=null quiet
	[ -n "$uml_missing" ] || run uml $r env $uml_env "$uml" mem=512M \
	    initrd="$cpio" rdinit=/t/kbench con0=fd:0,fd:1 con=null quiet
	r=$((r + 1))
done

# Boot to the first line init prints: native is a plain exec of the same
# program; the kernels get 256 MiB each.
boot() {
	col=$1; shift
	"$build/bootwatch" -n "$boots" -t 60 "$marker" "$@" \
	    > "$out.$col.boot" 2> "$out.$col.boot.err" ||
	    { echo "kernbench: $col boot failed: see $out.$col.boot.err" >&2
	      failed="$failed $col-boot"; }
}
boot native "$stage/t/hello"
for l in latency density; do
	boot $l "$build/vkernel" -l $l -m 256m --initramfs "$cpio" -- /t/hello
done
[ -n "$uml_missing" ] || boot umlpin taskset -c 0 env $uml_env "$uml" mem=256M \
    initrd="$cpio" rdinit=/t/hello con0=fd:0,fd:1 con=null quiet
[ -n "$uml_missing" ] || boot uml env $uml_env "$uml" mem=256M initrd="$cpio" \
    rdinit=/t/hello con0=fd:0,fd:1 con=null quiet

# cell COLUMN TEST: the median over the runs, or "-"
cell() {
	cat "$out.$1".[0-9]* 2>/dev/null | awk -v t="$2" '$1 == t { print $2 }' |
	    sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'
}
bootcell() {
	awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' \
	    "$out.$1.boot" 2>/dev/null | grep . || echo -
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.1fx", a / b }'
}
fmt='%-29s %8s %8s %8s %8s %8s %7s %7s %7s %7s %7s %7s\n'
row() {
	name=$1 n=$2 lat=$3 den=$4 up=$5 u=$6
	printf "$fmt" "$name" "$n" "$lat" "$den" "$up" "$u" \
	    "$(ratio "$lat" "$n")" "$(ratio "$den" "$n")" \
	    "$(ratio "$up" "$lat")" "$(ratio "$up" "$den")" \
	    "$(ratio "$u" "$lat")" "$(ratio "$u" "$den")"
}

{
	echo "kernel benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -r), $(nproc) CPUs;"
	echo "medians (of rounds within each run; of $runs run(s); boots: of $boots);"
	echo "host load average before: $load0, after: $(cut -d' ' -f1-3 /proc/loadavg)"
	printf "$fmt" "" native "vk-lat" "vk-den" UML-pin UML \
	    "lat/nat" "den/nat" "pin/lat" "pin/den" "UML/lat" "UML/den"
	for t in $tests; do
		case $t in shell-macro) name="$t (ms)" ;; *) name="$t (us)" ;; esac
		row "$name" "$(cell native "$t")" "$(cell latency "$t")" \
		    "$(cell density "$t")" "$(cell umlpin "$t")" "$(cell uml "$t")"
	done
	for k in first-line exit; do
		case $k in first-line) name="boot to init's line (ms)" ;; *) name="boot to exit (ms)" ;; esac
		row "$name" "$(bootcell native $k)" "$(bootcell latency $k)" \
		    "$(bootcell density $k)" "$(bootcell umlpin $k)" "$(bootcell uml $k)"
	done
	for f in "$out".*.[0-9]*.raw; do
		[ -f "$f" ] || continue
		n=${f#$out.}
		tr -d '\r' < "$f" | sed -n "s|^# |note (${n%.raw}): |p"
	done
	echo "first touch: $mib MiB, per page; mmap+touch: 10,000 separate one-page mappings;"
	echo "fork+exec runs a static musl program that returns 0; shell-macro: 1,000"
	echo "echo | md5sum pipelines, then 500 files created and removed (busybox sh)."
	echo "UML-pin: UML under taskset -c 0 (its best on this host); UML: unpinned."
	echo "pin/lat, UML/den...: how many times faster vkernel is than UML (target: 3x or more);"
	echo "boot target: under 50 ms to init's first line."
	# getpid against the host layer's bare round trip, if make bench ran it
	if [ -f "$build/hostbench.out" ]; then
		set -- $(awk '/^vmspace syscall round trip/ { print $5, $7 }' "$build/hostbench.out")
		if [ $# = 2 ]; then
			echo "getpid vs host layer's vmspace syscall round trip ($1 / $2 us;" \
			    "target within 1.2x): latency $(ratio "$(cell latency getpid)" "$1")," \
			    "density $(ratio "$(cell density getpid)" "$2")"
		fi
	fi
	[ -z "$uml_note" ] || echo "$uml_note"
	if [ -n "$uml_why" ]; then echo "UML: unavailable ($uml_why)"
	elif [ -n "$uml_missing" ]; then echo "UML not installed: apt-get update && apt-get install -y user-mode-linux"; fi
	[ -z "$failed" ] || echo "FAILED:$failed (see $build/kbench-out/)"
} > "$table"
cat "$table"
[ -z "$failed" ]
