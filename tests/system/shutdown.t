# Shutdown: PID 1's exit status is vkernel's; reboot(2) and the host's
# SIGTERM take the machine down cleanly, killing every process.
. "$(dirname "$0")/lib.sh"

boot -- /bin/sh -c 'exit 7'
expect_status "init's exit status" 7

boot -- /bin/sh -c 'kill -SEGV $$'
expect_status "init killed by a signal" $((128 + 11))

boot -- /bin/sh -c 'sleep 100 & sleep 100 & echo up; poweroff -f; echo still running'
expect_status "poweroff -f" 0
expect_output "poweroff -f stops at once" "up"

boot -- /bin/sh -c 'sh -c "sleep 0.2; poweroff -f" & exec sleep 100'
expect_status "poweroff -f from a child of init" 0
# (reboot re-executes the vkernel: tests/system/oper.t)

boot -- /bin/sh -c 'halt -f'
expect_status "halt -f" 0
expect_log "halt is logged" "reboot(2) by pid .*: halt"

# The host's SIGTERM: init is killed, vkernel exits 128 + SIGKILL.
start=$(date +%s)
"$VK" -m 64m --initramfs "$ROOT" -- /bin/sh -c 'sleep 100 & sleep 100' \
    > "$T/out" 2>&1 &
vk=$!
sleep 1
kill -TERM $vk
wait $vk
st=$?
[ $st = $((128 + 9)) ] && [ $(( $(date +%s) - start )) -lt 10 ] &&
    ok "host SIGTERM shuts down" || fail "host SIGTERM shuts down" "status $st"

# reboot(2)'s arguments, and who may call it.
boot -- /t/bin/rebootcheck
expect_output "reboot(2) checks its arguments" "bad magic: EINVAL
bad command: EINVAL
non-root: EPERM
cad off: 0
power off: never returns"
expect_status "reboot(2) powers off" 0
