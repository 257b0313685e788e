# SMP: -n N virtual CPUs, and guest code on them in parallel.
#
# - sched_getaffinity, sysconf(_SC_NPROCESSORS_ONLN) and /proc/cpuinfo
#   show N CPUs on -n 1, 2 and 4;
# - two CPU-bound processes on -n 2 compute what they compute natively,
#   both virtual CPUs ran guest code (the user ticks of cpu0 and cpu1 in
#   /proc/stat), and the host ran the two guests on different cores
#   (their stubs' host affinity, sampled while they compute: every stub
#   was pinned to one core before, and -n 2 was no faster than -n 1);
# - two processes pinned to CPU 1 with sched_setaffinity run only there
#   (getcpu), and sched_getaffinity says so.
# No timing is asserted: the figures are printed.
. "$(dirname "$0")/lib.sh"

native=$BUILD/system-root/t/bin/smp
iter=300000000		# about 0.5 s of one host core per process

for n in 1 2 4; do
	boot -n "$n" -- /t/bin/smp cpus
	expect_output "-n $n: affinity, sysconf and /proc/cpuinfo show $n CPUs" \
	    "cpus $n $n $n"
done

# The two guests' host cores, sampled every 50 ms while vkernel runs:
# "cores A B" each time two stubs are running.
timeout 120 "$VK" -v -m 64m -n 2 --initramfs "$SYSROOT" -- \
    /t/bin/smp spin 2 "$iter" -s > "$T/out" 2> "$T/log" < /dev/null &
tpid=$!
while kill -0 "$tpid" 2>/dev/null; do
	for vk in $(pgrep -P "$tpid"); do
		cores=$(for stub in $(pgrep -P "$vk"); do
			state=$(cut -d' ' -f3 "/proc/$stub/stat" 2>/dev/null)
			[ "$state" = R ] || continue
			sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$stub/status" 2>/dev/null
		done | sort -u | tr '\n' ' ')
		case $cores in
		*" "*" "*) echo "cores $cores" ;;
		esac
	done
	sleep 0.05
done > "$T/cores"
wait "$tpid"
status=$?
tr -d '\r' < "$T/out" > "$T/guest"
"$native" spin 2 "$iter" | sort > "$T/want"
if [ "$status" = 0 ] && [ "$(grep '^proc' "$T/guest" | sort)" = "$(cat "$T/want")" ]; then
	ok "two CPU-bound processes on -n 2 compute the native results"
else
	fail "two CPU-bound processes on -n 2" "status $status: $(tr '\n' ';' < "$T/guest")"
fi
set -- $(sed -n 's/^stat cpu0 \([0-9]*\) cpu1 \([0-9]*\) elapsed \([0-9]*\)$/\1 \2 \3/p' "$T/guest")
if [ $# = 3 ] && [ $(($1 + $2)) -gt 0 ] && [ $(($1 * 4)) -ge $(($1 + $2)) ] &&
    [ $(($2 * 4)) -ge $(($1 + $2)) ]; then
	ok "both CPUs ran guest code: user ticks cpu0 $1, cpu1 $2, in $3 ticks" \
	    "(parallelism $(awk -v a="$(($1 + $2))" -v e="$3" 'BEGIN { printf "%.2f", e ? a / e : 0 }'))"
else
	fail "both CPUs ran guest code" "/proc/stat user ticks: ${*:-none}"
fi
if [ "$(nproc)" -lt 2 ]; then
	ok "guests on different host cores: skipped, the host has one core"
elif grep -q '^cores ' "$T/cores"; then
	ok "guests on different host cores: $(grep -c '^cores ' "$T/cores") samples like '$(grep '^cores ' "$T/cores" | head -1)'"
else
	fail "guests on different host cores" "running stubs never seen on two cores"
fi

boot -n 2 -- /t/bin/smp pin 1 2 100000000
tr -d '\r' < "$T/out" | sort > "$T/guest"
# Natively on CPU 0, which every host has: the same sums.
"$native" pin 0 2 100000000 | sed 's/mask 0x1$/mask 0x2/' | sort > "$T/want"
if [ "$status" = 0 ] && cmp -s "$T/guest" "$T/want"; then
	ok "processes pinned to CPU 1 run only there"
else
	fail "processes pinned to CPU 1" "status $status: $(tr '\n' ';' < "$T/guest")"
fi
