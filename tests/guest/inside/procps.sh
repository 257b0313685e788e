# busybox ps, top, free, uptime and df inside vkernel (-m 256m, one CPU):
# the values only this machine knows.  Prints ok/FAIL lines; the status
# is 1 if anything failed.
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

check "MemTotal is -m" '[ "$(awk "/^MemTotal:/ { print \$2 }" /proc/meminfo)" = 262144 ]'
read total used free cache <<EOF
$(free | awk '/^Mem:/ { print $2, $3, $4, $6 }')
EOF
check "free: total from meminfo" '[ "$total" = 262144 ]'
check "free: used + free + cache = total" '[ $((used + free + cache)) = $total ]'
check "free: most is free" '[ $free -gt 65536 ]'

sleep 30 & s=$!
# Until the child has exec'd (it is "sh" before).
i=0
while [ "$(cat /proc/$s/comm)" != sleep ] && [ $i -lt 50 ]; do
	sleep 0.1; i=$((i + 1))
done
check "ps shows sleep" '[ "$(ps -o pid,comm | awk -v p=$s "\$1 == p { print \$2 }")" = sleep ]'
check "ps shows args" 'ps -o pid,args | grep -q "^ *$s sleep 30$"'
check "ps: parent" '[ "$(ps -o pid,ppid | awk -v p=$s "\$1 == p { print \$2 }")" = $$ ]'
check "top lists it" 'top -bn1 | grep -q "^ *$s .*sleep 30"'
check "top: memory line" 'top -bn1 | grep -q "^Mem: [0-9]*K used, [0-9]*K free"'
check "sleeping" '[ "$(cut -d" " -f3 /proc/$s/stat)" = S ]'
check "cmdline" '[ "$(tr "\0" " " < /proc/$s/cmdline)" = "sleep 30 " ]'
check "exe: the binary run" '[ "$(readlink /proc/$s/exe)" = /bin/busybox ]'
check "maps: the binary" 'head -1 /proc/$s/maps | grep -q "^00400000-.* /bin/busybox$"'
check "maps: text and stack" 'grep -q " r-xp " /proc/$s/maps && grep -q "\[stack\]$" /proc/$s/maps'
kill $s; wait $s 2>/dev/null
check "gone when reaped" '[ ! -d /proc/$s ]'

check "one CPU" '[ "$(grep -c ^processor /proc/cpuinfo)" = 1 ]'
check "uptime" 'uptime | grep -q "up .*load average: [0-9]*\.[0-9][0-9], "'
check "uptime below a minute" '[ "$(cut -d. -f1 /proc/uptime)" -lt 60 ]'
check "process count" 'n=$(awk "/^processes/ { print \$2 }" /proc/stat);
    true; m=$(awk "/^processes/ { print \$2 }" /proc/stat); [ $m -gt $n ]'
check "df /" 'df / | awk "NR == 2 { exit !(\$1 == \"tmpfs\" && \$6 == \"/\") }"'
check "df /dev" 'df /dev | awk "NR == 2 { exit !(\$6 == \"/dev\") }"'
check "self fd link" '[ "$(readlink /proc/self/fd/1 > /dev/null; readlink /proc/$$/fd/0)" = /dev/console ]'
exit $fail
