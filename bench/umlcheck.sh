#!/bin/sh
# umlcheck.sh UML DIR: can User-Mode Linux (the kernel UML) run a program
# on this host?  Boots it on a tiny initramfs (made in DIR, removed after)
# whose init, a static C program, prints a line.  Exit 0 if it ran; else
# status 1 and the reason on standard output, e.g. "not installed" or the
# first error UML printed ("userspace - ptrace set fp regs failed" when
# the host's ptrace refuses UML's register state).  The benchmarks leave
# UML's column empty then and say why, instead of failing.
# UML_PRELOAD: a library to preload into UML alone (bench/umlxstate.so).
set -eu
uml=$1 dir=$2
command -v "$uml" >/dev/null || { echo "$uml not installed (apt-get install user-mode-linux)"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir/root"
trap 'rm -rf "$dir"' EXIT
printf '#include <stdio.h>\nint main(void) { puts("umlcheck: ran"); return 0; }\n' > "$dir/probe.c"
gcc -static -O2 -o "$dir/root/probe" "$dir/probe.c"
tools/mkinitramfs "$dir/probe.cpio" "$dir/root" >/dev/null 2>&1
timeout -k 5 60 env ${UML_PRELOAD:+LD_PRELOAD="$UML_PRELOAD"} "$uml" mem=64M initrd="$dir/probe.cpio" rdinit=/probe \
    con0=fd:0,fd:1 con=null quiet < /dev/null > "$dir/out" 2>&1 || true
tr -d '\r' < "$dir/out" | grep -q '^umlcheck: ran' && exit 0
# The first error, past the harmless ones of every boot without devices.
why=$(tr -d '\r' < "$dir/out" | grep -iE 'fail|panic|abort|error' |
    grep -vE 'mmapper_init|ubd device|zswap' | head -1)
echo "its first program does not run: ${why:-no output}"
exit 1
