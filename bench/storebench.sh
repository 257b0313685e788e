#!/bin/sh
# The storage benchmark: bench/guest/sbench.c natively (in a directory on
# the same disk as the images), inside vkernel (-r, on an ext2 image made
# by tools/mkroot) and under User-Mode Linux (its root on a ubd copy of
# the same image), one table of medians in build/sbench.table. Figures
# are reported, never asserted; a run that crashes, hangs (killed after
# its time limit), prints no figures, reads back wrong data or leaves an
# image e2fsck does not find clean is named in the table and makes the
# script fail after printing it.
#
#   BUILD=build bench/storebench.sh
#
# Cold reads: the kernel is rebooted between the write and each read, and
# the file (natively) or the image is dropped from the host's page cache
# (dd iflag=nocache count=0 after an fsync: no root needed, and nothing
# else on the host loses its cache); one more boot reads with the image
# still in the host's cache (a guest-cold read).
#
# Environment: SBENCH_SIZE (image size, default 512M), SBENCH_READS
# (cold reads per column, default 3), SBENCH_VKFLAGS (more vkernel
# options, e.g. "-l density"), UML (the UML kernel, default linux.uml).
set -eu
build=${BUILD:-build}
size=${SBENCH_SIZE:-512M}
reads=${SBENCH_READS:-3}
vkflags=${SBENCH_VKFLAGS:-}
stage=$build/sbench-root
tarball=$build/sbench-tree.tar
img=$build/sbench.img
natdir=$build/sbench-native
out=$build/sbench-out/s
table=$build/sbench.table
wlimit=150	# seconds for a write run (everything but the reads)
rlimit=60	# seconds for a read run
failed=	# what failed, for the table and the exit status
wtests="seq-write-fsync-ms create-write-close-us sync-after-create-ms delete-us untar-ms tar-ms"

[ -x "$build/vkernel" ] || { echo "storebench: $build/vkernel missing: make $build/vkernel" >&2; exit 1; }
command -v musl-gcc >/dev/null || { echo "storebench: needs musl-gcc: apt-get install musl-tools" >&2; exit 1; }
PATH=$PATH:/sbin:/usr/sbin
command -v e2fsck >/dev/null || { echo "storebench: needs e2fsck: apt-get install e2fsprogs" >&2; exit 1; }
uml=${UML:-linux.uml}
uml_missing=	# why UML cannot run here, if it cannot
uml_missing=$(bench/umlcheck.sh "$uml" "$build/sbench-umlcheck") || true
[ -z "$uml_missing" ] ||
    echo "storebench: UML: unavailable ($uml_missing): its column stays empty" >&2

# The guest program and the tarball of 5,000 small files (50 directories
# of 100, 100 to 8,000 bytes each, 24 MB), made on the host once.
rm -rf "$stage" "$natdir" "$build/sbench-out"
mkdir -p "$stage/t" "$stage/data" "$natdir" "$build/sbench-out"
musl-gcc -static -O2 -Wall -Wextra -Werror -o "$stage/t/sbench" bench/guest/sbench.c
if [ ! -s "$tarball" ]; then
	tree=$build/sbench-tree
	rm -rf "$tree" && mkdir -p "$tree"
	(cd "$tree" && awk 'BEGIN {
		for (i = 0; i < 1024; i++) s = s sprintf("%c", 33 + (i * 7) % 90)
		s = s s s s s s s s
		for (d = 0; d < 50; d++) {
			system(sprintf("mkdir d%02d", d))
			for (f = 0; f < 100; f++) {
				n = d * 100 + f; fn = sprintf("d%02d/f%03d", d, f)
				printf "%s\n", substr(s, 1 + n % 97, 99 + (n * 613) % 7900) > fn
				close(fn)
			}
		}
	}')
	tar cf "$tarball.tmp" -C "$tree" . && mv "$tarball.tmp" "$tarball"
	rm -rf "$tree"
fi
cp "$tarball" "$stage/t/tree.tar"
MKROOT_SIZE=$size tools/mkroot "$img" "$stage"
cp "$tarball" "$natdir/tree.tar"
load0=$(cut -d" " -f1-3 /proc/loadavg)

# run COLUMN TAG LIMIT command...: one sbench run, its "name value" lines
# in $out.COLUMN.TAG; a failure is reported and named in the table.
run() {
	col=$1 tag=$2 lim=$3; shift 3
	f=$out.$col.$tag
	st=0
	timeout -k 5 "$lim" "$@" < /dev/null > "$f.raw" 2> "$f.err" || st=$?
	tr -d '\r' < "$f.raw" | grep -E '^[a-z-]+ [0-9.]+$' > "$f" || true
	case $tag in read*) want=seq-read-ms ;; *) want=$wtests ;; esac
	for t in $want; do
		if ! grep -q "^$t " "$f"; then
			echo "storebench: $col $tag: no '$t' line (status $st): see $f.raw, $f.err" >&2
			failed="$failed $col-$tag(status-$st)"
			return
		fi
	done
	if [ "$st" != 0 ] || ! tr -d '\r' < "$f.raw" | grep -q '^sbench: done$'; then
		echo "storebench: $col $tag failed (status $st): see $f.raw, $f.err" >&2
		failed="$failed $col-$tag(status-$st)"
	fi
	echo "storebench: $col $tag done (status $st)" >&2
}

# uncache FILE: out of the host's page cache (written back first)
uncache() {
	sync "$1"
	dd if="$1" iflag=nocache count=0 2>/dev/null
}

# checkfs COLUMN IMAGE: e2fsck -fn must find it clean
checkfs() {
	if ! e2fsck -fn "$2" > "$out.$1.fsck" 2>&1; then
		echo "storebench: $1: e2fsck -fn $2 found problems: see $out.$1.fsck" >&2
		failed="$failed $1-e2fsck"
	fi
}

# column NAME WRITE-COMMAND... :: READ-COMMAND...: drops FILE ($file)
# from the host cache before each cold read
column() {
	col=$1; shift
	w=
	while [ "$1" != :: ]; do w="$w $1"; shift; done
	shift
	# shellcheck disable=SC2086
	run "$col" write $wlimit $w
	i=1
	while [ "$i" -le "$reads" ]; do
		uncache "$file"
		run "$col" "read$i" $rlimit "$@"
		i=$((i + 1))
	done
	[ "$col" = native ] || run "$col" readwarm $rlimit "$@"
}

file=$natdir/seq
column native "$stage/t/sbench" "$natdir" "$natdir/tree.tar" /bin/busybox write :: \
    "$stage/t/sbench" "$natdir" - - read

cp "$img" "$build/sbench-vk.img"
file=$build/sbench-vk.img
# shellcheck disable=SC2086
column vkernel "$build/vkernel" $vkflags -m 512m -r "$file" -- /t/sbench /data /t/tree.tar /bin/busybox write :: \
    "$build/vkernel" $vkflags -m 512m -r "$file" -- /t/sbench /data /t/tree.tar /bin/busybox read
checkfs vkernel "$file"

if [ -z "$uml_missing" ]; then
	cp "$img" "$build/sbench-uml.img"
	file=$build/sbench-uml.img
	boot="mem=512M ubd0=$file root=/dev/ubda rw init=/t/sbench con0=fd:0,fd:1 con=null quiet"
	# shellcheck disable=SC2086
	column uml "$uml" $boot sbench=write :: "$uml" $boot sbench=read
	checkfs uml "$file"
fi
rm -rf "$natdir"

# cell COLUMN NAME TAGS: the median over the runs, or "-"
cell() {
	col=$1 t=$2; shift 2
	for g in "$@"; do cat "$out.$col.$g" 2>/dev/null || true; done |
	    awk -v t="$t" '$1 == t { print $2 }' |
	    sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.1fx", a / b }'
}
mbs() {
	awk -v a="$1" 'BEGIN { if (a == "-" || a + 0 == 0) print "-"; else printf "%.0f", 64 * 1.048576 * 1000 / a }'
}
row() {
	name=$1 n=$2 v=$3 u=$4
	printf '%-30s %9s %9s %9s %8s %8s\n' "$name" "$n" "$v" "$u" \
	    "$(ratio "$v" "$n")" "$(ratio "$u" "$v")"
}
colds=
i=1
while [ "$i" -le "$reads" ]; do colds="$colds read$i"; i=$((i + 1)); done

{
	echo "storage benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -r), $(nproc) CPUs;"
	echo "host file system: $(findmnt -no FSTYPE -T "$build" 2>/dev/null || echo '?'); images: ext2 $size (tools/mkroot);"
	echo "medians of 3 rounds (cold reads: of $reads boots); vkernel flags: -m 512m${vkflags:+ $vkflags};"
	echo "host load average before: $load0, after: $(cut -d' ' -f1-3 /proc/loadavg)"
	printf '%-30s %9s %9s %9s %8s %8s\n' "" native vkernel UML "vk/nat" "UML/vk"
	row "seq write+fsync 64 MiB (ms)" "$(cell native seq-write-fsync-ms write)" \
	    "$(cell vkernel seq-write-fsync-ms write)" "$(cell uml seq-write-fsync-ms write)"
	# shellcheck disable=SC2086
	row "seq read 64 MiB, cold (ms)" "$(cell native seq-read-ms $colds)" \
	    "$(cell vkernel seq-read-ms $colds)" "$(cell uml seq-read-ms $colds)"
	row "seq read, guest-cold (ms)" - "$(cell vkernel seq-read-ms readwarm)" \
	    "$(cell uml seq-read-ms readwarm)"
	for t in create-write-close-us sync-after-create-ms delete-us untar-ms tar-ms; do
		case $t in
		create-write-close-us) name="create+write 4K+close (us)" ;;
		sync-after-create-ms) name="sync after 10,000 files (ms)" ;;
		delete-us) name="delete (us per file)" ;;
		untar-ms) name="tar x, 5,000 files (ms)" ;;
		tar-ms) name="tar c, 5,000 files (ms)" ;;
		esac
		row "$name" "$(cell native $t write)" "$(cell vkernel $t write)" "$(cell uml $t write)"
	done
	for c in native vkernel uml; do
		# shellcheck disable=SC2086
		set -- "$(mbs "$(cell $c seq-write-fsync-ms write)")" "$(mbs "$(cell $c seq-read-ms $colds)")"
		echo "$c: sequential write $1 MB/s, cold read $2 MB/s"
	done
	for f in "$out".*.raw; do
		[ -f "$f" ] || continue
		n=${f#"$out".}
		tr -d '\r' < "$f" | sed -n "s|^# |note (${n%.raw}): |p"
	done
	echo "cold: kernel rebooted (vkernel, UML) and the file or image dropped from the"
	echo "host's page cache; guest-cold: rebooted, image still in the host's cache."
	echo "files: 10,000 in one directory, per file; tar: busybox tar, 24 MB tarball."
	echo "vk/nat: times slower than native (target: 1.5x or less for sequential I/O);"
	echo "UML/vk: times faster than UML (target: 2x or more)."
	[ -z "$uml_missing" ] || echo "UML: unavailable ($uml_missing)"
	[ -z "$failed" ] || echo "FAILED:$failed (see $build/sbench-out/)"
} > "$table"
cat "$table"
[ -z "$failed" ]
