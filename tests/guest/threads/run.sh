#!/bin/sh
# Thread tests (issue 10): each c/NAME.c is built twice, with musl-gcc
# and with gcc, both -static -pthread; each binary runs natively (in a
# scratch directory) and inside vkernel (busybox sh in /tmp of an
# initramfs, once per CPU count of THREADS_NCPUS, default "1 2"); the
# output and exit status inside must be the native ones.  Each program
# checks itself ("ok ..."/"FAIL ..." lines, exit status the number of
# failures), so a native FAIL is a broken test, reported as such.
#
#   BUILD=build sh tests/guest/threads/run.sh [NAME...]
#
# Last line: "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-build}
vk=$build/vkernel
ncpus=${THREADS_NCPUS:-1 2}
stage=$(cd "$build" && pwd)/threads-root || exit 1	# BUILD may be absolute
out=$build/threads-out
rm -rf "$stage" "$out" && mkdir -p "$stage/t/thr" "$out"
command -v musl-gcc >/dev/null || {
	if [ "$(id -u)" = 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq musl-tools >/dev/null
	else echo "thread tests need musl-gcc: apt-get install musl-tools" >&2; exit 1; fi
}
if [ $# = 0 ]; then
	set -- $(cd "$here/c" && ls *.c | sed 's/\.c$//')
fi
for name; do
	c=$here/c/$name.c
	musl-gcc -static -pthread -O2 -Wall -Werror -o "$stage/t/thr/$name" "$c" || exit 1
	gcc -static -pthread -O2 -Wall -Werror -o "$stage/t/thr/$name.glibc" "$c" || exit 1
done
tools/mkinitramfs "$build/threads.cpio" "$stage" || exit 1

pass=0 fail=0
# result NAME WHERE STATUS-NATIVE STATUS-INSIDE: compares the two outputs.
result() {
	if [ "$3" != 0 ]; then
		fail=$((fail + 1)); echo "FAIL thread $1: fails natively (status $3): see $out/$1.native"
	elif cmp -s "$out/$1.native" "$out/$1.$2" && [ "$3" = "$4" ]; then
		pass=$((pass + 1)); echo "ok   thread $1 ($2)"
	else
		fail=$((fail + 1)); echo "FAIL thread $1 ($2): status $4 inside, $3 native"
		# the first lines that differ on each side
		diff "$out/$1.native" "$out/$1.$2" > "$out/$1.$2.diff"
		grep '^<' "$out/$1.$2.diff" | head -3
		grep '^>' "$out/$1.$2.diff" | head -3
	fi
}
for name; do
	for b in $name $name.glibc; do
		scratch=$(mktemp -d)
		(cd "$scratch" && timeout 60 "$stage/t/thr/$b") > "$out/$b.native" 2>&1
		na_rc=$?
		rm -rf "$scratch"
		for n in $ncpus; do
			timeout 30 "$vk" -n "$n" -m 256m --initramfs "$build/threads.cpio" -- \
			    /bin/sh -c "cd /tmp && exec /t/thr/$b" > "$out/$b.n$n" 2> "$out/$b.n$n.log"
			result "$b" "n$n" $na_rc $?
		done
	done
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
