#!/bin/sh
# TCP over the loopback inside one machine: bench/guest/tcpbench (bulk
# throughput through one connection, median round trip of one byte each
# way) natively and inside vkernel, IPv4 and IPv6.  Figures, never
# asserted.  INETBENCH_MB and INETBENCH_ROUNDS size the runs.
set -u
cd "$(dirname "$0")/.." || exit 1
build=${BUILD:-build}
mb=${INETBENCH_MB:-256}
rounds=${INETBENCH_ROUNDS:-2000}
stage=$(mktemp -d)
trap 'rm -rf "$stage" "$build/inetbench.cpio"' EXIT
mkdir -p "$stage/t"
gcc -static -O2 -Wall -Werror -o "$stage/t/tcpbench" bench/guest/tcpbench.c || exit 1
tools/mkinitramfs "$build/inetbench.cpio" "$stage" || exit 1
for fam in "" -6; do
	name=${fam:+IPv6}
	name=${name:-IPv4}
	echo "== tcpbench $name native"
	"$stage/t/tcpbench" $fam -m "$mb" -r "$rounds" || exit 1
	echo "== tcpbench $name inside"
	"$build/vkernel" -m 256m --initramfs "$build/inetbench.cpio" -- \
	    /t/tcpbench $fam -m "$mb" -r "$rounds" 2>/dev/null || exit 1
done
