#!/bin/sh
# The file benchmark (issue 11): a Debian bookworm root (tools/mkroot
# --debian, its tarball cached in build/) run natively in a chroot of the
# same tree, inside vkernel booted on its ext2 image and under User-Mode
# Linux booted on a copy of that image; one table of medians in
# build/fbench.table:
#   - exec of a dynamic program (/bin/true from bash), per exec;
#   - python3 -c pass start-up;
#   - mapped read of a 256 MiB file (bench/guest/mapread.c, gcc -static):
#     cold (file or image dropped from the host's page cache, a fresh
#     boot) and warm (the second pass in the same boot);
#   - the storage benchmark's sequential write and cold read (from
#     build/sbench.table when make bench has just made it, else
#     bench/storebench.sh is run);
#   - make -j2 of a generated C project (20 files and a pthread main).
# Figures are reported, never asserted.  A run that fails, hangs or gives
# a different answer (the mapped file's sum, the built program's output)
# is named in the table and makes the script fail after printing it.
# UML that cannot run a program on this host is reported as unavailable,
# with the reason, and is not a failure.
#
#   BUILD=build bench/filebench.sh
#
# Environment: FBENCH_RUNS (runs per figure, default 5: medians of 5),
# UML (the UML kernel, default linux.uml).  Needs root (the Debian tree
# keeps its owners; chroot): without it, or without the package registry
# and no cached tarball, it says it is skipped and exits 0.
set -eu
build=${BUILD:-build}
runs=${FBENCH_RUNS:-5}
work=$build/fbench
tree=$work/tree
img=$work/root.img
out=$work/out/f
table=$build/fbench.table
limit=600	# seconds for one main run (exec, python3, builds)
mlimit=120	# seconds for one mapped-read run
failed=	# what failed, for the table and the exit status

[ -x "$build/vkernel" ] || { echo "filebench: $build/vkernel missing: make $build/vkernel" >&2; exit 1; }
# Without root or without the package registry there is no Debian root:
# said, and not a failure of make bench.
[ "$(id -u)" = 0 ] || { echo "filebench: skipped: needs root (the Debian tree and chroot)"; exit 0; }
load0=$(cut -d" " -f1-3 /proc/loadavg)

# The stage: the guest script, mapread, the 256 MiB file (pseudo-random,
# so neither side can skip holes or compress) and the C project.
rm -rf "$work" && mkdir -p "$work/stage/t/proj" "$work/out"
cp bench/guest/fbench.sh "$work/stage/t/"
gcc -static -O2 -Wall -Wextra -Werror -o "$work/stage/t/mapread" bench/guest/mapread.c
head -c 256M /dev/urandom > "$work/stage/t/big"
proj=$work/stage/t/proj
i=1
while [ $i -le 20 ]; do
	# Each file: a few loops, enough for gcc -O2 to do real work.
	cat > "$proj/f$i.c" <<-C
	#include "fns.h"
	static unsigned mix$i(unsigned x) { return (x ^ (x >> 13)) * 0x5bd1e995u + $i; }
	unsigned f$i(unsigned n)
	{
		unsigned a[64], s = 0;
		for (unsigned i = 0; i < 64; i++)
			a[i] = mix$i(i * n);
		for (unsigned r = 0; r < 8; r++)
			for (unsigned i = 1; i < 64; i++)
				a[i] += a[i - 1] ^ mix$i(a[(i * 7) % 64]);
		for (unsigned i = 0; i < 64; i++)
			s += a[i] % (i + $i);
		return s;
	}
	C
	echo "unsigned f$i(unsigned n);" >> "$proj/fns.h"
	i=$((i + 1))
done
{
	echo '#include <pthread.h>'
	echo '#include <stdio.h>'
	echo '#include "fns.h"'
	echo 'static unsigned (*fns[])(unsigned) = {'
	i=1; while [ $i -le 20 ]; do echo "	f$i,"; i=$((i + 1)); done
	cat <<-'C'
	};
	static unsigned res[4];
	static void *work(void *arg)
	{
		unsigned k = (unsigned)(unsigned long)arg;
		for (unsigned i = 0; i < 20; i++)
			res[k] += fns[i](k * 20 + i);
		return NULL;
	}
	int main(void)
	{
		pthread_t t[4];
		for (unsigned long k = 0; k < 4; k++)
			pthread_create(&t[k], NULL, work, (void *)k);
		for (int k = 0; k < 4; k++)
			pthread_join(t[k], NULL);
		printf("%u %u %u %u\n", res[0], res[1], res[2], res[3]);
		return 0;
	}
	C
} > "$proj/main.c"
# shellcheck disable=SC2016
printf '%s\n' 'CFLAGS = -O2 -Wall -pthread' \
    "OBJS = main.o $(i=1; while [ $i -le 20 ]; do printf 'f%d.o ' $i; i=$((i + 1)); done)" \
    'prog: $(OBJS)' '	$(CC) -pthread -o $@ $(OBJS)' \
    '$(OBJS): fns.h' 'clean:' '	rm -f prog $(OBJS)' > "$proj/Makefile"

echo "filebench: making the Debian root (tools/mkroot --debian)" >&2
st=0
MKROOT_SIZE=1536M MKROOT_TREE=$tree tools/mkroot --debian "$img" "$work/stage" \
    > "$work/mkroot.log" 2>&1 || st=$?
if [ $st != 0 ]; then
	cat "$work/mkroot.log" >&2
	rm -rf "$work"
	if [ $st = 3 ]; then
		echo "filebench: skipped: mmdebstrap cannot reach the package registry; no Debian root"
		exit 0
	fi
	echo "filebench: tools/mkroot --debian failed (status $st)" >&2
	exit 1
fi
rm -rf "$work/stage"

# User-Mode Linux: present and able to run a program?  If not, why.
uml=${UML:-linux.uml}
uml_why=$(bench/umlcheck.sh "$uml" "$work/umlcheck") || true
[ -z "$uml_why" ] || echo "filebench: UML: unavailable ($uml_why)" >&2

# run COLUMN TAG LIMIT command...: one run, its "name value" lines in
# $out.COLUMN.TAG; a run that fails or does not finish is named.
run() {
	col=$1 tag=$2 lim=$3; shift 3
	f=$out.$col.$tag
	st=0
	timeout -k 5 "$lim" "$@" < /dev/null > "$f.raw" 2> "$f.err" || st=$?
	tr -d '\r' < "$f.raw" | grep -E '^[a-z0-9-]+ ' > "$f" || true
	if [ "$st" != 0 ] || ! tr -d '\r' < "$f.raw" | grep -q '^fbench: done$'; then
		echo "filebench: $col $tag failed (status $st): see $f.raw, $f.err" >&2
		failed="$failed $col-$tag(status-$st)"
	fi
	echo "filebench: $col $tag done (status $st)" >&2
}

# uncache FILE: out of the host's page cache (written back first)
uncache() {
	sync "$1"
	dd if="$1" iflag=nocache count=0 2>/dev/null
}

# One column: the main run, then RUNS mapped-read runs, each cold.
# native: a chroot in its own pid and mount namespaces, with init's
# environment (as tests/debian/run.sh runs it).
# (The build directory's path has no blanks: the words split.)
native="unshare --mount --pid --fork --mount-proc=$tree/proc chroot $tree
    /usr/bin/env -i HOME=/ TERM=linux PATH=/sbin:/bin:/usr/sbin:/usr/bin"
# shellcheck disable=SC2086
run native main $limit $native /t/fbench.sh main "$runs"
r=1
while [ $r -le "$runs" ]; do
	uncache "$tree/t/big"
	# shellcheck disable=SC2086
	run native map$r $mlimit $native /t/fbench.sh map
	r=$((r + 1))
done

run vkernel main $limit "$build/vkernel" -m 1g -r "$img" -- /t/fbench.sh main "$runs"
r=1
while [ $r -le "$runs" ]; do
	uncache "$img"
	run vkernel map$r $mlimit "$build/vkernel" -m 1g -r "$img" -- /t/fbench.sh map
	r=$((r + 1))
done

if [ -z "$uml_why" ]; then
	cp "$img" "$work/uml.img"
	boot="mem=1G ubd0=$work/uml.img root=/dev/ubda rw init=/t/fbench.sh con0=fd:0,fd:1 con=null quiet"
	# shellcheck disable=SC2086
	run uml main $limit "$uml" $boot fbmode=main fbruns="$runs"
	r=1
	while [ $r -le "$runs" ]; do
		uncache "$work/uml.img"
		# shellcheck disable=SC2086
		run uml map$r $mlimit "$uml" $boot fbmode=map
		r=$((r + 1))
	done
	rm -f "$work/uml.img"
fi

# The answers must agree: the mapped file's sum, the built program's output.
for k in mapread-sum build-out; do
	want=$(cat "$out".native.* 2>/dev/null | awk -v k="$k" '$1 == k' | sort -u)
	for c in vkernel uml; do
		got=$(cat "$out.$c".* 2>/dev/null | awk -v k="$k" '$1 == k' | sort -u)
		if [ -n "$got" ] && [ "$got" != "$want" ]; then
			echo "filebench: $c: $k differs from native: $got / $want" >&2
			failed="$failed $c-$k"
		fi
	done
done

# The storage benchmark's figures: make bench runs it just before.
if [ ! -s "$build/sbench.table" ] || [ -n "$(find "$build/vkernel" -newer "$build/sbench.table")" ]; then
	echo "filebench: running bench/storebench.sh for its sequential figures" >&2
	BUILD=$build UML=$uml bench/storebench.sh > "$work/storebench.out" 2>&1 ||
	    failed="$failed storebench(see-$work/storebench.out)"
fi
# srow LABEL: native vkernel UML of that row of build/sbench.table
srow() {
	awk -v l="$1" 'index($0, l) == 1 { n = NF; print $(n - 4), $(n - 3), $(n - 2) }' \
	    "$build/sbench.table" 2>/dev/null | grep . || echo "- - -"
}

# cell COLUMN NAME: the median over the runs, or "-"
cell() {
	cat "$out.$1".* 2>/dev/null | awk -v t="$2" '$1 == t { print $2 }' |
	    sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.1fx", a / b }'
}
row() {
	name=$1 n=$2 v=$3 u=$4
	printf '%-34s %9s %9s %9s %8s %8s\n' "$name" "$n" "$v" "$u" \
	    "$(ratio "$v" "$n")" "$(ratio "$u" "$v")"
}
u() { if [ -z "$uml_why" ]; then cell uml "$1"; else echo -; fi; }

{
	echo "file benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -r), $(nproc) CPUs;"
	echo "Debian bookworm root: native = chroot of the tree, vkernel = -m 1g -r its ext2 image;"
	echo "medians of $runs runs (storage rows: of build/sbench.table, storebench's medians);"
	echo "host load average before: $load0, after: $(cut -d' ' -f1-3 /proc/loadavg)"
	if [ -n "$uml_why" ]; then echo "UML: unavailable ($uml_why)"; fi
	printf '%-34s %9s %9s %9s %8s %8s\n' "" native vkernel UML "vk/nat" "UML/vk"
	for t in exec-true-ms python3-ms mapread-cold-ms mapread-warm-ms; do
		case $t in
		exec-true-ms) name="exec /bin/true from bash (ms)" ;;
		python3-ms) name="python3 -c pass (ms)" ;;
		mapread-cold-ms) name="mmap read 256 MiB, cold (ms)" ;;
		mapread-warm-ms) name="mmap read 256 MiB, warm (ms)" ;;
		esac
		row "$name" "$(cell native $t)" "$(cell vkernel $t)" "$(u $t)"
	done
	# shellcheck disable=SC2046
	set -- $(srow "seq write+fsync 64 MiB (ms)")
	row "seq write+fsync 64 MiB (ms)" "$1" "$2" "$3"
	# shellcheck disable=SC2046
	set -- $(srow "seq read 64 MiB, cold (ms)")
	row "seq read 64 MiB, cold (ms)" "$1" "$2" "$3"
	row "make -j2, 21 files, gcc -O2 (s)" "$(cell native build-s)" "$(cell vkernel build-s)" "$(u build-s)"
	echo "exec: 50 execs a run, per exec; mmap read: MAP_SHARED, every byte summed;"
	echo "cold: fresh boot and the file (native) or image dropped from the host's page"
	echo "cache; warm: the second pass in the same boot (native: right after)."
	echo "vk/nat: times slower than native (targets: 1.5x for sequential I/O);"
	echo "UML/vk: times faster than UML."
	[ -z "$failed" ] || echo "FAILED:$failed (see $work/out/)"
} > "$table"
rm -rf "$tree" "$img"
cat "$table"
[ -z "$failed" ]
