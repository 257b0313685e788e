#!/bin/sh
# An exited process's stub wiped by a reaper thread while its parent goes
# on (host/trap/trap_recycle.c: density placement, a stub ready for the
# next fork, a core with no CPU), its address space released by the
# kernel's vmreap thread once the stub is clean (vm/vm_vmspace.c).  The
# guest tests run in the latency placement, where the CPU wipes; here
# in density: forksecret (tests/guest/c: no child sees what an exited
# sibling wrote, at a fixed address, on its stack or heap) and
# umountexit (tests/guest/inside/c: a tmpfs unmounts right after the
# exit of a program run from it), with the counters saying how many
# wipes a reaper did.
. "$(dirname "$0")/lib.sh"
mkdir -p "$T/stage/t" "$T/stage/tmp"
for p in c/forksecret inside/c/umountexit; do
	musl-gcc -static -O2 -Wall -Werror -o "$T/stage/t/$(basename $p)" \
	    "tests/guest/$p.c" || { fail "build $p" "musl-gcc failed"; exit 0; }
done
tools/mkinitramfs "$T/root.cpio" "$T/stage" > /dev/null ||
    { fail "initramfs" "mkinitramfs failed"; exit 0; }

VKERNEL_FORKSTAT=1 timeout 120 "$VK" -l density -m 256m \
    --initramfs "$T/root.cpio" -- /t/forksecret > "$T/out" 2> "$T/log" < /dev/null
status=$?
expect_status "forksecret in density: exit status" 0
expect_output "forksecret in density" "children: ok
grandchildren: ok
children: ok
grandchildren: ok"
line=$(grep "forkstat: host: kills" "$T/log")
reaped=$(printf '%s\n' "$line" | sed -n 's/.* \([0-9]*\) of them by a reaper.*/\1/p')
if [ "$(nproc)" -lt 2 ]; then
	skip "wipes by a reaper: one host core, no spare one"
elif [ -n "$reaped" ] && [ "$reaped" -gt 0 ]; then
	ok "wipes by a reaper: $reaped ($line)"
else
	fail "wipes by a reaper" "${line:-no forkstat line}"
fi

timeout 120 "$VK" -l density -m 256m --initramfs "$T/root.cpio" -- \
    /t/umountexit 50 > "$T/out" 2> "$T/log" < /dev/null
status=$?
expect_status "umountexit in density: exit status" 0
grep -q "^ok" "$T/out" && ok "umountexit in density: $(cat "$T/out")" ||
    fail "umountexit in density" "$(head -c 300 "$T/out")"
