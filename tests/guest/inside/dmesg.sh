# busybox dmesg inside vkernel: the boot messages, in Linux's format
# ("[    0.000000] text"; "<6>[...]" raw), dmesg -n (the console level,
# /proc/sys/kernel/printk), a line written to /dev/kmsg, /proc/kmsg,
# dmesg -c; then the record-level checks of kmsgring.  Natively this
# would read and clear the host's log, so inside only.
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

dmesg > /tmp/d
check "dmesg: the boot messages" 'grep -q "^\[    0\.000000\] vkernel: [0-9]* MiB RAM" /tmp/d'
check "dmesg: init started" 'grep -q "^\[ *[0-9]*\.[0-9]\{6\}\] init: .* started$" /tmp/d'
check "dmesg: every line timed" '! grep -qv "^\[ *[0-9]*\.[0-9]\{6\}\] " /tmp/d'
check "dmesg -r: levels" 'dmesg -r | head -1 | grep -q "^<6>\[    0\.000000\] "'
check "printk: quiet by default" '[ "$(cut -f1 /proc/sys/kernel/printk)" = 4 ]'
dmesg -n 1
check "dmesg -n 1" '[ "$(cut -f1 /proc/sys/kernel/printk)" = 1 ]'
dmesg -n 8
check "dmesg -n 8" '[ "$(cut -f1 /proc/sys/kernel/printk)" = 8 ]'
dmesg -n 4
check "dmesg_restrict" '[ "$(cat /proc/sys/kernel/dmesg_restrict)" = 1 ]'
echo "<5>dmesg.sh: hello" > /dev/kmsg
check "/dev/kmsg write, dmesg shows it" 'dmesg | grep -q "\] dmesg.sh: hello$"'
check "as user notice: <13>" 'dmesg -r | grep -q "^<13>\[.*\] dmesg.sh: hello$"'
check "/proc/kmsg: the unread log" 'dd if=/proc/kmsg bs=65536 count=1 2>/dev/null | grep -q "^<6>\[    0\.000000\] vkernel: "'
check "/proc/kmsg is root's" 'ls -l /proc/kmsg | grep -q "^-r-------- "'
check "/dev/kmsg: 1, 11" 'ls -l /dev/kmsg | grep -q "^crw-r--r-- .* 1, *11 "'
dmesg -c > /tmp/c
check "dmesg -c prints" 'grep -q "dmesg.sh: hello" /tmp/c'
check "dmesg -c clears" '[ -z "$(dmesg)" ]'
if /t/inside/bin/kmsgring > /tmp/k; then cat /tmp/k; else cat /tmp/k; fail=1; fi
if /t/inside/bin/kmsgring.glibc > /tmp/k; then echo "ok   kmsgring (glibc)"; else cat /tmp/k; fail=1; fi
exit $fail
