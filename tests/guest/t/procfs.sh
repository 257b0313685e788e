# /proc and /dev as programs read them: properties that hold on any Linux,
# so the output is the same inside and natively.
read pid rest < /proc/self/stat
[ "$pid" = "$$" ] && echo "stat: /proc/self is the reader"
awk -v p=$$ '/^Pid:/ { print "status: Pid is the pid", ($2 == p) }' /proc/$$/status
# The shell may not be asleep in wait yet when awk reads it.
awk '/^State:/ { print "status: state", $2 ~ /^[RS]$/ ? "R or S" : $2 }' /proc/$$/status
cat /proc/self/comm
cat /proc/self/cmdline | tr '\0' '|'; echo
env -i A=1 B=two cat /proc/self/environ | tr '\0' '|'; echo
grep -c '\[stack\]' /proc/self/maps
awk '{ ok = $1 ~ /^[0-9a-f]+-[0-9a-f]+$/ && $2 ~ /^[r-][w-][x-][ps]$/ }
    END { print "maps: well formed", ok }' /proc/self/maps
[ "$(readlink /proc/$$/cwd)" = "$(pwd -P)" ] && echo "cwd link is the cwd"
[ -x "$(readlink /proc/self/exe)" ] && echo "exe link is a program"
readlink /proc/self/fd/0 < /dev/null
echo | readlink /proc/self/fd/0 | sed 's/[0-9]//g'
exec 5< /proc/self/stat
[ -L /proc/$$/fd/5 ] && echo "fd 5 listed"
exec 5<&-
[ -e /proc/$$/fd/5 ] || echo "fd 5 gone"

# System-wide files, in the formats busybox's free, top and uptime parse.
grep -c '^MemTotal: *[0-9][0-9]* kB$' /proc/meminfo
awk '/^MemTotal:/ { t = $2 } /^MemFree:/ { f = $2 }
    END { print "meminfo: free <= total", (f <= t) }' /proc/meminfo
awk '{ print "uptime: format", ($1 ~ /^[0-9]+\.[0-9][0-9]$/ && $2 ~ /^[0-9]+\.[0-9][0-9]$/) }' /proc/uptime
awk '{ print "loadavg: format", ($1 ~ /^[0-9]+\.[0-9][0-9]$/ && $4 ~ /^[0-9]+\/[0-9]+$/ && NF == 5) }' /proc/loadavg
awk '$1 == "cpu" { c = NF >= 8 } $1 == "btime" { b = $2 > 0 }
    $1 == "processes" { p = $2 > 0 } $1 == "procs_running" { r = $2 >= 1 }
    END { print "stat: cpu btime processes procs_running", c, b, p, r }' /proc/stat
grep -q '^processor' /proc/cpuinfo && echo "cpuinfo: has processors"
grep -q '^Linux version ' /proc/version && echo "version: Linux"
grep -c ' /proc proc ' /proc/mounts
[ -L /proc/mounts ] && readlink /proc/mounts
grep -w -e proc -e tmpfs /proc/filesystems
cat /proc/sys/kernel/ostype
[ "$(cat /proc/sys/kernel/pid_max)" -gt 0 ] && echo "pid_max"

# A started process shows, and goes when reaped.
sleep 10 & s=$!
[ -d /proc/$s ] && echo "started process listed"
{ kill $s; wait $s; } 2>/dev/null
[ -d /proc/$s ] || echo "reaped process gone"

# The nodes every /dev has.
for n in null zero full random urandom tty; do [ -c /dev/$n ] && echo "/dev/$n"; done
for n in stdin stdout stderr fd; do readlink /dev/$n; done
[ -d /dev/shm ] && echo "/dev/shm"

# A pipe reopened by its /proc/self/fd link (and /dev/fd, bash's <(...)).
echo hi | cat /proc/self/fd/0
echo there | cat /dev/fd/0
echo status $?
