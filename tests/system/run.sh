#!/bin/sh
# System tests: host-side scripts (tests/system/*.t) that boot vkernel
# and check what only the whole machine shows (shutdown, exit statuses,
# the host's signals).  Each prints "ok NAME", "FAIL NAME: why" or
# "skip NAME: why" per check; this counts them.  Last line: "N passed,
# N failed, N skipped".  An argument
# runs only that test (tests/system/NAME.t).
set -u
here=$(cd "$(dirname "$0")" && pwd)
export BUILD=${BUILD:-build}
export VK=$BUILD/vkernel
export ROOT=$BUILD/root.cpio
[ -f "$ROOT" ] || tools/mkinitramfs "$ROOT" >/dev/null || exit 1
# SYSROOT: busybox and the test programs of c/ (musl, static) in /t/bin.
stage=$BUILD/system-root
rm -rf "$stage" && mkdir -p "$stage/t/bin"
for c in "$here"/c/*.c; do
	musl-gcc -static -O2 -Wall -Werror -o "$stage/t/bin/$(basename "$c" .c)" "$c" ||
	    exit 1
done
export SYSROOT=$BUILD/system.cpio
tools/mkinitramfs "$SYSROOT" "$stage" >/dev/null || exit 1
out=$BUILD/system.out
: > "$out"
for t in "$here"/${1:-*}.t; do
	timeout 600 sh "$t" >> "$out" 2>&1 || echo "FAIL $(basename "$t"): exit status $?" >> "$out"
done
cat "$out"
pass=$(grep -c '^ok ' "$out")
fail=$(grep -c '^FAIL ' "$out")
skipped=$(grep -c '^skip ' "$out")
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" = 0 ]
