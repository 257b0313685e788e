# The operator's interface: -h lists every option main() takes; -p
# writes the pid, refuses a pid file a running vkernel holds, takes over
# one a killed vkernel left, and is removed on every exit (init's exit,
# poweroff, the host's SIGTERM, a panic's abort) but a reboot, which
# re-executes the vkernel in the same process with the same arguments
# and the same disk; the console level decides which kernel lines reach
# standard error (-v: all).
. "$(dirname "$0")/lib.sh"

# -h: every short option of the getopt string and every long option.
"$VK" -h > "$T/help" 2>&1
st=$?
opts=$(sed -n 's/.*getopt_long(argc, argv, "+\([^"]*\)".*/\1/p' boot/main.c | tr -d ':')
longs=$(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", .*/\1/p' boot/main.c)
missing=
for o in $(echo "$opts" | sed 's/./& /g'); do
	grep -q -- "-$o\b\|\[-[a-zA-Z]*$o[a-zA-Z]*\]" "$T/help" || missing="$missing -$o"
done
for o in $longs; do
	grep -q -- "--$o" "$T/help" || missing="$missing --$o"
done
[ $st = 0 ] && [ -n "$opts" ] && [ -z "$missing" ] && ok "-h lists every option" ||
    fail "-h lists every option" "status $st, missing:$missing (options $opts)"
"$VK" -Z > "$T/out" 2> "$T/err"
st=$?
[ $st = 64 ] && grep -q "^usage: vkernel" "$T/err" && ok "a bad option: usage, status 64" ||
    fail "a bad option: usage, status 64" "status $st"

# -p while running: the pid, a second vkernel refused, SIGTERM removes it.
pidf=$T/vk.pid
"$VK" -m 64m --initramfs "$ROOT" -p "$pidf" -- /bin/sh -c 'echo up; sleep 100' \
    > "$T/run" 2>&1 &
vk=$!
i=0
while [ $i -lt 100 ] && ! grep -q up "$T/run" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
[ "$(cat "$pidf" 2>/dev/null)" = "$vk" ] && ok "-p writes the pid" ||
    fail "-p writes the pid" "\"$(cat "$pidf" 2>/dev/null)\", pid $vk"
"$VK" -m 64m --initramfs "$ROOT" -p "$pidf" -- /bin/true > "$T/out" 2> "$T/err"
st=$?
[ $st = 69 ] && grep -q "held by a running vkernel, pid $vk" "$T/err" &&
    [ "$(cat "$pidf")" = "$vk" ] && ok "-p: a running vkernel's pid file is refused" ||
    fail "-p: a running vkernel's pid file is refused" "status $st: $(cat "$T/err")"
kill -TERM $vk
wait $vk
[ ! -e "$pidf" ] && ok "-p: removed after SIGTERM" || fail "-p: removed after SIGTERM" "still there"

boot -p "$pidf" -- /bin/sh -c 'exit 3'
[ $status = 3 ] && [ ! -e "$pidf" ] && ok "-p: removed when init exits" ||
    fail "-p: removed when init exits" "status $status, $(ls "$pidf" 2>&1)"
boot -p "$pidf" -- /bin/sh -c 'poweroff -f'
[ $status = 0 ] && [ ! -e "$pidf" ] && ok "-p: removed at power off" ||
    fail "-p: removed at power off" "status $status, $(ls "$pidf" 2>&1)"
boot -p "$pidf" -- /bin/sh -c 'halt -f'
[ $status = 0 ] && [ ! -e "$pidf" ] && ok "-p: removed at halt" ||
    fail "-p: removed at halt" "status $status, $(ls "$pidf" 2>&1)"

# A panic aborts (SIGABRT, as panic() raises it); a kill -9 leaves the
# file, unlocked, and the next vkernel takes it over.
for sig in ABRT KILL; do
	"$VK" -m 64m --initramfs "$ROOT" -p "$pidf" -- /bin/sh -c 'echo up; sleep 100' \
	    > "$T/run" 2>&1 &
	vk=$!
	i=0
	while [ $i -lt 100 ] && ! grep -q up "$T/run" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
	kill -$sig $vk
	wait $vk 2>/dev/null
	if [ $sig = ABRT ]; then
		[ ! -e "$pidf" ] && ok "-p: removed by an abort (panic)" ||
		    fail "-p: removed by an abort (panic)" "still there"
	else
		[ -e "$pidf" ] && ok "-p: kill -9 leaves it" || fail "-p: kill -9 leaves it" "gone"
	fi
done
boot -p "$pidf" -- /bin/sh -c 'exit 0'
[ $status = 0 ] && [ ! -e "$pidf" ] && ok "-p: a killed vkernel's file is taken over" ||
    fail "-p: a killed vkernel's file is taken over" "status $status"

# Reboot: the same process runs again with the same arguments; what the
# first boot wrote and synced is on the disk, which e2fsck finds clean.
disk=$T/disk.img
dd if=/dev/zero of="$disk" bs=1M count=8 2>/dev/null
mke2fs -q -t ext2 -F "$disk"
"$VK" -m 64m --initramfs "$ROOT" -r "$disk" -p "$pidf" -- /bin/sh -c '
    mkdir -p /mnt; mount -t ext2 /dev/vkd0 /mnt || exit 9
    if [ -e /mnt/booted ]; then
        echo "second boot: $(cat /mnt/booted)"; sleep 1; exit 5
    fi
    echo "written before reboot" > /mnt/booted; sync
    echo "first boot"; reboot -f; sleep 100' > "$T/run" 2> "$T/err" &
vk=$!
i=0
while [ $i -lt 200 ] && ! grep -q "second boot" "$T/run" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
samepid=$(cat "$pidf" 2>/dev/null)
wait $vk
st=$?
[ "$(cat "$T/run")" = "first boot
second boot: written before reboot" ] && [ $st = 5 ] &&
    ok "reboot re-executes; the disk survives" ||
    fail "reboot re-executes; the disk survives" "status $st: $(cat "$T/run" "$T/err" | head -5)"
[ "$samepid" = "$vk" ] && [ ! -e "$pidf" ] &&
    ok "reboot keeps the pid and its file, exit removes it" ||
    fail "reboot keeps the pid and its file" "\"$samepid\", pid $vk"
e2fsck -fn "$disk" > "$T/fsck" 2>&1 && ok "reboot: e2fsck -fn clean" ||
    fail "reboot: e2fsck -fn clean" "$(tail -3 "$T/fsck")"

# The console level: errors reach standard error without -v, info only
# with it; dmesg -n 1 silences even errors.
lines='echo "<2>oper: critical" > /dev/kmsg; echo "<6>oper: info" > /dev/kmsg'
"$VK" -m 64m --initramfs "$ROOT" -- /bin/sh -c "$lines" > "$T/out" 2> "$T/err"
grep -q '^\[ *[0-9.]*\] oper: critical$' "$T/err" && ! grep -q "oper: info" "$T/err" &&
    ! grep -q "init: " "$T/err" && ok "console: errors only without -v" ||
    fail "console: errors only without -v" "$(head -5 "$T/err")"
"$VK" -v -m 64m --initramfs "$ROOT" -- /bin/sh -c "$lines" > "$T/out" 2> "$T/err"
grep -q "oper: critical" "$T/err" && grep -q '^\[ *[0-9.]*\] oper: info$' "$T/err" &&
    grep -q '^\[    0\.000000\] vkernel: 64 MiB RAM' "$T/err" &&
    ok "console: -v shows every line, boot messages first" ||
    fail "console: -v shows every line" "$(head -5 "$T/err")"
"$VK" -m 64m --initramfs "$ROOT" -- /bin/sh -c "dmesg -n 1; $lines" > "$T/out" 2> "$T/err"
! grep -q "oper:" "$T/err" && ok "console: dmesg -n 1 silences errors" ||
    fail "console: dmesg -n 1 silences errors" "$(head -5 "$T/err")"
