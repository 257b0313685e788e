# tools/gdb: gdb attaches to a running vkernel (it is a host process)
# and vk-ps lists the guest's processes from the kernel's own tables;
# vk-map and vk-pte read a process's map and vpagetable; the same
# commands work on a core that gdb wrote (gcore).  Skipped only if the
# host refuses ptrace.
. "$(dirname "$0")/lib.sh"

gdbcmd() {
	timeout 120 gdb -batch -nx -x tools/gdb/vkernel.py "$@" 2>&1
}

"$VK" -m 32m --initramfs "$SYSROOT" -- /bin/sh -c \
    'sleep 60 & exec 3>&1; (echo $! >&3; exec sleep 61) & echo ready; wait' \
    < /dev/null > "$T/out" 2> "$T/log" &
vk=$!
waitfor "$T/out" ready
# No core of a sanitized vkernel: gcore would write its shadow memory.
core=yes
nm "$VK" | grep -q __asan_init && core=
set -- -ex vk-ps -ex 'vk-map 2' -ex 'vk-pte 2 0x401000'
[ -n "$core" ] && set -- "$@" -ex "gcore $T/core"
gdbcmd -p $vk "$@" > "$T/gdb"
if grep -q "ptrace: Operation not permitted\|Could not attach" "$T/gdb"; then
	ok "gdb: ptrace attach refused by the host: skipped"
else
	[ "$(grep -c '^ *[23] *[23] *1 sleep  nanslp  *- sleep$' "$T/gdb")" = 2 ] &&
	    grep -q '^ *1 *1 *0 sleep .* sh$' "$T/gdb" &&
	    ok "vk-ps lists the guest's processes (gdb -p)" ||
	    fail "vk-ps lists the guest's processes (gdb -p)" "$(tr '\n' ';' < "$T/gdb" | tail -c 600)"
	grep -q '^0000000000401000 0000000000585000 r-x  pn  0x[0-9a-f]* vnode$' "$T/gdb" &&
	    ok "vk-map shows the text's entry" || fail "vk-map" "$(grep -c '^0000' "$T/gdb") entries"
	grep -q '^  PT .* V U A$' "$T/gdb" && grep -q '^  page 0x' "$T/gdb" &&
	    ok "vk-pte walks to the text's page, accessed" || fail "vk-pte" "$(grep '^  ' "$T/gdb" | tr '\n' ';')"
	# The guests went on: gdb only paused the vkernel.
	kill -0 $vk 2>/dev/null && ok "the vkernel runs on after gdb detached" ||
	    fail "the vkernel runs on after gdb detached" "it is gone"
	if [ -s "$T/core" ]; then
		gdbcmd "$VK" "$T/core" -ex vk-ps > "$T/gdbcore"
		[ "$(grep -c 'nanslp  *- sleep$' "$T/gdbcore")" = 2 ] &&
		    ok "vk-ps on a core file" || fail "vk-ps on a core file" "$(tail -5 "$T/gdbcore" | tr '\n' ';')"
		rm -f "$T/core"
	elif [ -n "$core" ]; then
		fail "gcore" "no core written"
	fi
fi
kill -TERM $vk
wait $vk
exit 0
