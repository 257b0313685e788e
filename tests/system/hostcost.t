# What a vkernel takes from the host: a guest process costs a stub that
# the guest cannot grow (no host stack to dirty: 100 processes trying
# must not add ~8 MiB each), and the process limit leaves the host the
# tasks it needs (-m 4g once allowed 32,768 processes, 65,536 host tasks,
# past a default pid_max of 32,768).
. "$(dirname "$0")/lib.sh"

# Sums a field of /proc/PID/status (kB) over vkernel's stubs.
stubs_kb() {
	grep -h "^$2:" $(for c in $(ps -o pid= --ppid $1); do
	    echo /proc/$c/status; done) 2>/dev/null | awk '{ s += $2 } END { print s + 0 }'
}

"$VK" -m 256m --initramfs "$SYSROOT" -- /bin/sh -c '
	/t/bin/stubdirty show
	i=0; while [ $i -lt 100 ]; do /t/bin/stubdirty & i=$((i + 1)); done
	sleep 1; echo measure; sleep 2; poweroff -f' > "$T/out" 2>"$T/log" &
vk=$!
i=0
while ! grep -q measure "$T/out" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
stubs=$(ps -o pid= --ppid $vk | wc -l)
anon=$(stubs_kb $vk RssAnon)
rss=$(stubs_kb $vk VmRSS)
vkanon=$(awk '/^RssAnon:/ { print $2 }' /proc/$vk/status)
wait $vk
echo "hostcost: $stubs stubs: RssAnon $anon KiB, VmRSS $rss KiB (mostly RAM, shared); vkernel RssAnon $vkanon KiB"
[ "$(head -1 "$T/out")" = "0 KiB" ] && ok "a guest writes nothing where its stub's stack was" ||
    fail "a guest writes nothing where its stub's stack was" "$(head -1 "$T/out")"
# Before: ~8 MiB of RssAnon per stub.
[ "$stubs" -ge 100 ] && [ "$anon" -lt $((stubs * 256)) ] &&
    ok "100 processes dirtying their stubs: host memory bounded" ||
    fail "100 processes dirtying their stubs: host memory bounded" "$stubs stubs, RssAnon $anon KiB"

# The process limit within the host's tasks (2 a process).
pid_max=$(cat /proc/sys/kernel/pid_max)
"$VK" -v -m 4g --initramfs "$ROOT" -- /bin/sh -c 'ulimit -u' > "$T/out" 2>"$T/log"
nproc=$(tail -1 "$T/out")
maxprocs=$((nproc * 2))		# init's RLIMIT_NPROC is maxprocs / 2
echo "hostcost: -m 4g: maxprocs $maxprocs, host pid_max $pid_max"
[ -n "$nproc" ] && [ $((maxprocs * 2)) -lt "$pid_max" ] &&
    ok "-m 4g: processes within the host's pid_max" ||
    fail "-m 4g: processes within the host's pid_max" "maxprocs $maxprocs"
