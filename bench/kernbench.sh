#!/bin/sh
# The kernel benchmark (bench/guest/kbench.c), natively and inside
# vkernel in both placements, one table of medians (microseconds).
# User-Mode Linux is not measured here yet.
set -eu
build=${BUILD:-build}
stage=$build/kbench-root
rm -rf "$stage" && mkdir -p "$stage/t"
musl-gcc -static -O2 -Wall -Werror -o "$stage/t/kbench" bench/guest/kbench.c
tools/mkinitramfs "$build/kbench.cpio" "$stage"
"$stage/t/kbench" > "$build/kbench.native"
for l in latency density; do
	"$build/vkernel" -l $l -m 512m --initramfs "$build/kbench.cpio" -- /t/kbench \
	    > "$build/kbench.$l" 2>/dev/null
done
printf '%-24s %12s %12s %12s %10s\n' "us per operation" native latency density "lat/native"
while read -r name native; do
	lat=$(awk -v n="$name" '$1 == n { print $2 }' "$build/kbench.latency")
	den=$(awk -v n="$name" '$1 == n { print $2 }' "$build/kbench.density")
	printf '%-24s %12s %12s %12s %10s\n' "$name" "$native" "$lat" "$den" \
	    "$(awk -v a="$lat" -v b="$native" 'BEGIN { printf "%.1fx", a / b }')"
done < "$build/kbench.native"
