#!/bin/sh
# durability.sh FIRST COUNT: kill -9 of vkernel at a random moment of an
# fsync loop (c/fsyncloop.c), COUNT times, seeds FIRST ... FIRST+COUNT-1.
# Each iteration boots a fresh copy of an ext2 root image, lets the loop
# acknowledge records on the console, kills vkernel with SIGKILL after a
# seeded delay, then checks the image on the host: every record
# acknowledged is there (debugfs), e2fsck -fn finds only what an unclean
# shutdown of ext2 may leave (e2fsck -fy repairs it, -fn is clean after),
# and the records are still there after the repair.
# Prints "ok   durability seed N (...)" or "FAIL durability seed N: why",
# then "durability: N kills, N records acknowledged, N lost, N failed".
set -u
first=$1 count=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$(cd "${BUILD:-build}" && pwd) || exit 1	# BUILD may be absolute
vk=$build/vkernel
work=${DURABILITY_DIR:-$build/durability}
PATH=$PATH:/sbin:/usr/sbin
rm -rf "$work" && mkdir -p "$work/stage/t/bin"
musl-gcc -static -O2 -Wall -Werror -o "$work/stage/t/bin/fsyncloop" \
    "$here/c/fsyncloop.c" || exit 1
MKROOT_SIZE=32M MKROOT_OPTS="-b 1024" "$top/tools/mkroot" "$work/base.img" \
    "$work/stage" || exit 1

# check IMG ACKED: every record 0..ACKED is in /dur/log, whole and in order.
check() {
	debugfs -R 'cat /dur/log' "$1" 2>/dev/null | awk -v last="$2" '
	    $1 != "rec" || $2 != n { exit }
	    { want = sprintf("%c", 97 + n % 26); body = $4
	      if (length(body) != $3 - 1 || body !~ ("^" want "*$")) exit
	      n++ }
	    END { print n - 1 }'
}

acked_total=0 lost=0 failed=0
s=$first
while [ $s -lt $((first + count)) ]; do
	img=$work/$s.img out=$work/$s.out
	cp "$work/base.img" "$img"
	: > "$out"
	"$vk" -m 128m -r "$img" -- /t/bin/fsyncloop /dur $s > "$out" 2> "$out.err" &
	pid=$!
	i=0
	while [ $i -lt 300 ] && ! grep -q ready "$out"; do sleep 0.05; i=$((i + 1)); done
	# A seeded moment: 0 to 1.5 s into the loop.
	sleep "$(awk -v s=$s 'BEGIN { srand(s); printf "%.3f", rand() * 1.5 }')"
	kill -9 $pid
	wait $pid 2>/dev/null
	acked=$(sed -n 's/^ack \([0-9]*\)$/\1/p' "$out" | tail -1)
	acked=${acked:--1}
	got=$(check "$img" "$acked")
	e2fsck -fn "$img" > "$img.fsck1" 2>&1
	fsck1=$?
	e2fsck -fy "$img" > "$img.fsck2" 2>&1
	e2fsck -fn "$img" > "$img.fsck3" 2>&1
	fsck3=$?
	after=$(check "$img" "$acked")
	# What e2fsck said of the crashed image, reduced to the kinds of problem.
	found=$(grep -v '^Pass\|^e2fsck\|^Fix? no\|^$\|files (.*blocks$\|^\*\*\*\|WARNING' \
	    "$img.fsck1" | sed 's/[0-9][0-9]*/N/g; s/[-+]N//g; s/(.*//' | sort -u |
	    tr '\n' ';')
	why=
	if ! grep -q ready "$out"; then why="never ready: $(tail -1 "$out.err")"
	elif [ "${got:--1}" -lt "$acked" ]; then
		why="lost acknowledged records: ack $acked, on disk up to ${got:--1}"
		lost=$((lost + acked - ${got:--1}))
	elif [ $fsck3 != 0 ]; then why="e2fsck -fy left problems: $(grep -v '^Pass\|^e2fsck' "$img.fsck3" | head -3 | tr '\n' ';')"
	elif [ "${after:--1}" -lt "$acked" ]; then why="records lost in the repair"
	fi
	acked_total=$((acked_total + acked + 1))
	if [ -z "$why" ]; then
		echo "ok   durability seed $s (ack $acked, on disk $got, e2fsck $fsck1${found:+: $found})"
		rm -f "$img" "$img".fsck* "$out" "$out.err"
	else
		echo "FAIL durability seed $s: $why"
		failed=$((failed + 1))
	fi
	s=$((s + 1))
done
echo "durability: $count kills, $acked_total records acknowledged, $lost lost, $failed failed"
[ $failed = 0 ]
