#!/bin/sh
# The fork counters (proc/fork_stat.h, VKERNEL_FORKSTAT=1) and what they
# showed: a shell's forked child running an applet (busybox sh, `echo |
# md5sum`) took some 30 page faults through the host before it exited
# (text, data, copy-on-write), the same pages for every child.  Now the
# pages its elder siblings faulted on are entered before it runs and
# mapped by the host with its first run (vm/vm_forkhint.c), and its
# text, stack and thread-pointer pages too (vmspace_fork_enter/touch):
# a handful of faults per hundred children at most.  Without the
# variable, nothing is counted or printed.
. "$(dirname "$0")/lib.sh"
n=200
loop="i=0; while [ \$i -lt $n ]; do echo \$i | busybox md5sum >/dev/null || exit 3; i=\$((i+1)); done; echo done \$i"

VKERNEL_FORKSTAT=1 timeout 120 "$VK" -v -m 64m --initramfs "$ROOT" -- \
    /bin/sh -c "$loop" > "$T/out" 2> "$T/log" < /dev/null
status=$?
expect_status "$n pipelines with the counters on: exit status" 0
expect_output "$n pipelines with the counters on" "done $n"
forks=$(sed -n 's/.*forkstat: \([0-9]*\) forks.*/\1/p' "$T/log")
[ -n "$forks" ] && [ "$forks" -ge $n ] &&
    ok "the counters saw the forks ($forks)" ||
    fail "the counters saw the forks" "$(grep forkstat "$T/log" | head -3)"
# The children's page faults: the fault-r, fault-w and fault-x lines of
# the first traps section (forked children before exec).
faults=$(awk '/traps of forked children/ { on = 1; next }
    /traps of the others/ { on = 0 }
    on && $2 ~ /^fault-/ { s += $3 } END { print s + 0 }' "$T/log")
if [ -n "$forks" ] && [ "$forks" -gt 0 ] &&
    [ $((faults * 10)) -lt $((forks * 5)) ]; then
	ok "children's faults through the kernel: $faults in $forks forks (fewer than 0.5 each)"
else
	fail "children's faults through the kernel" "$faults in ${forks:-no} forks: $(grep -A8 'traps of forked' "$T/log" | head -9 | tr '\n' '|')"
fi
grep -q "forkstat: host: creates" "$T/log" &&
    ok "the host layer's counters are printed" ||
    fail "the host layer's counters are printed" "no 'forkstat: host' line"
echo "# forkstat: $(grep -A6 'traps of forked' "$T/log" | tr -s ' ' | tr '\n' '|')" >&2

# Off by default: no counting, no lines.
env -u VKERNEL_FORKSTAT timeout 60 "$VK" -v -m 64m --initramfs "$ROOT" -- \
    /bin/sh -c "echo x | busybox md5sum >/dev/null; echo done" \
    > "$T/out" 2> "$T/log" < /dev/null
status=$?
expect_status "counters off: exit status" 0
grep -q forkstat "$T/log" &&
    fail "counters off: nothing printed" "$(grep forkstat "$T/log" | head -1)" ||
    ok "counters off: nothing printed"
