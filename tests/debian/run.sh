#!/bin/sh
# Debian tests: a Debian bookworm root (tools/mkroot --debian, its
# tarball cached in build/) with work.sh in /t, run in a chroot of the
# same tree on the host and inside vkernel booted on its ext2 image;
# each section of work.sh must print the same in both.  Sections listed
# in tests/debian/waiting wait on another branch: a difference there is
# a skip, printed with the difference.  When mmdebstrap cannot reach the
# package registry (and no tarball is cached) the whole test is skipped,
# saying so.  Figures (figures.sh) are printed, never asserted.
# Last line: "N passed, N failed, N skipped".
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-build}
vk=$build/vkernel
work=$(cd "$build" && pwd)/debian-test || exit 1	# BUILD may be absolute
pass=0 fail=0 skip=0
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
summary() { echo "$pass passed, $fail failed, $skip skipped"; [ $fail = 0 ]; exit; }
if [ "$(id -u)" != 0 ]; then
	echo "skip debian: needs root (mmdebstrap's tree and chroot)"
	skip=1; summary
fi
rm -rf "$work" && mkdir -p "$work/stage/t"
cp "$here/work.sh" "$here/figures.sh" "$work/stage/t/"

t0=$(date +%s.%N)
MKROOT_TREE=$work/tree tools/mkroot --debian "$work/root.img" "$work/stage" \
    > "$work/mkroot.log" 2>&1
rc=$?
t1=$(date +%s.%N)
if [ $rc = 3 ]; then
	cat "$work/mkroot.log"
	echo "skip debian: mmdebstrap cannot reach the package registry; no Debian root"
	skip=1; summary
elif [ $rc != 0 ]; then
	cat "$work/mkroot.log"
	echo "FAIL debian: tools/mkroot --debian failed (status $rc)"
	fail=1; summary
fi
echo "     root built in $(secs "$t0" "$t1") s ($(grep -q mmdebstrap "$work/mkroot.log" &&
    echo "mmdebstrap ran" || echo "cached tarball"))"

run="/bin/bash /t/work.sh; /bin/bash /t/figures.sh"
# The chroot in its own pid and mount namespaces: its /proc shows its
# processes only, as vkernel's does, and goes away with it.  Its
# environment is init's inside (not make's: MAKEFLAGS would reach the
# make that work.sh runs).
t0=$(date +%s.%N)
timeout 900 unshare --mount --pid --fork --mount-proc="$work/tree/proc" \
    chroot "$work/tree" /usr/bin/env -i HOME=/ TERM=linux \
    PATH=/sbin:/bin:/usr/sbin:/usr/bin /bin/bash -c "$run" \
    > "$work/chroot.out" 2>&1 < /dev/null
t1=$(date +%s.%N)
chroot_s=$(secs "$t0" "$t1")
t0=$(date +%s.%N)
timeout 900 "$vk" -m 1g -r "$work/root.img" -- /bin/bash -c "$run" \
    > "$work/inside.out" 2> "$work/inside.log" < /dev/null
in_rc=$?
t1=$(date +%s.%N)
inside_s=$(secs "$t0" "$t1")

# One file per section: NAME.chroot and NAME.inside.
split() {
	awk -v dir="$work" -v kind="$2" '
	    /^== / { f = dir "/" $2 "." kind; printf "" > f; next }
	    /^figure / { print > (dir "/figures." kind); next }
	    f != "" { print >> f }' "$1"
}
split "$work/chroot.out" chroot
split "$work/inside.out" inside
for s in $(sed -n 's/^== //p' "$work/chroot.out"); do
	waits=$(awk -v s="$s" '$1 == s { $1 = ""; print substr($0, 2) }' "$here/waiting")
	if [ -f "$work/$s.inside" ] && cmp -s "$work/$s.chroot" "$work/$s.inside"; then
		pass=$((pass + 1))
		if [ -n "$waits" ]; then
			echo "ok   debian $s (no longer waits on ${waits%%:*}: take it off tests/debian/waiting)"
		else
			echo "ok   debian $s"
		fi
	elif [ -n "$waits" ]; then
		skip=$((skip + 1))
		echo "skip debian $s: waits on $waits"
		diff "$work/$s.chroot" "$work/$s.inside" 2>&1 | head -6 | sed 's/^/     /'
	else
		fail=$((fail + 1))
		echo "FAIL debian $s"
		diff "$work/$s.chroot" "$work/$s.inside" 2>&1 | head -20
	fi
done
[ $in_rc = 0 ] || { fail=$((fail + 1)); echo "FAIL debian: vkernel's status $in_rc (log: $work/inside.log)"; }
echo "     wall time: chroot $chroot_s s, vkernel $inside_s s (boot, work.sh and figures.sh)"
for k in chroot inside; do
	[ -f "$work/figures.$k" ] && sed "s/^figure /     $k: /" "$work/figures.$k"
done
# The tree and image are big; the outputs stay for reading.
rm -rf "$work/tree" "$work/root.img" "$work/stage"
summary
