# ddb on a console that is not a terminal (stdin a pipe): the host's
# SIGINT stops the machine and the debugger reads its commands from the
# pipe; the guests see nothing of the visit but the time it took.  A
# panic there prints its message and a backtrace and exits 99.
. "$(dirname "$0")/lib.sh"

# vkwait: closes the debugger's input (fd 3) and waits up to 60 s for
# vkernel ($vk), then kills it; its status in $status.
vkwait() {
	exec 3>&-
	( sleep 60; kill -9 $vk 2>/dev/null ) &
	killer=$!
	wait $vk
	status=$?
	kill $killer 2>/dev/null
}

# ddbrun NCPU INPUT -- init...: boots with the debugger's input INPUT
# given 3 s after SIGINT, sent once the guest printed "ready"; stdout in
# $T/out, stderr in $T/log, vkernel's status in $status.
ddbrun() {
	ncpu=$1 input=$2
	shift 3
	rm -f "$T/fifo" && mkfifo "$T/fifo"
	"$VK" -v -m 128m -n "$ncpu" --initramfs "$SYSROOT" -- "$@" \
	    < "$T/fifo" > "$T/out" 2> "$T/log" &
	vk=$!
	exec 3> "$T/fifo"
	if waitfor "$T/out" ready; then
		kill -INT $vk
		waitfor "$T/out" "ddb: SIGINT" && sleep 3
		printf '%b' "$input" >&3
	fi
	vkwait
}

# Two CPUs, two guest loops, one sleeper: ddb stops both CPUs, shows
# every process, and each loop ends with its count, the sleep with 0.
loop='i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done; echo loop-$i'
ddbrun 2 'ps\nshow cpu\ntrace\nshow log\ncontinue\n' -- /bin/sh -c "
	sh -c '$loop' & sh -c '$loop' & sleep 5 & s=\$!
	echo ready; wait \$s; echo slept-\$?; wait"
expect_status "SIGINT on a piped console: the machine goes on" 0
[ "$(grep -c '^loop-3000000$' "$T/out")" = 2 ] && grep -q '^slept-0$' "$T/out" &&
    ok "the guests finish as if nothing happened" ||
    fail "the guests finish as if nothing happened" "status $status: $(grep -v '^ ' "$T/out" | tr '\n' ';') log: $(grep -iv 'started\|pages\|buffer\|rseq\|RAM' "$T/log" | tr '\n' ';')"
grep -q "other CPUs stopped: 1" "$T/out" && grep -q "cpu 1: .*, stopped, " "$T/out" &&
    ok "every other CPU parks" || fail "every other CPU parks" "$(grep -i 'cpu' "$T/out" | tr '\n' ';')"
# init, the two loops, the sleeper (named sh, exe or sleep, as far as
# its exec has come: busybox runs its applets through /proc/self/exe).
[ "$(grep -c '^ *[1-4]  *[1-4]  *[01]  *1  *0 ' "$T/out")" = 4 ] &&
    ok "ps shows the guests" || fail "ps shows the guests" "$(tr '\n' ';' < "$T/out")"
grep -q "init: /bin/sh started" "$T/out" && ok "show log shows the kernel's messages" ||
    fail "show log" "no boot message"
grep -q '^#[1-9]  0x.* kern_intr+0x' "$T/out" && ok "trace names the frames" ||
    fail "trace" "$(grep '^#' "$T/out" | head -3 | tr '\n' ';')"

# The end of the debugger's input is a continue.
ddbrun 1 '' -- /bin/sh -c 'echo ready; sleep 1; echo done'
expect_status "end of input continues" 0
grep -q "end of input: continuing" "$T/out" && grep -q '^done$' "$T/out" &&
    ok "end of input leaves the debugger" || fail "end of input" "$(tail -3 "$T/out" | tr '\n' ';')"

# panic: not a terminal, so no debugger after it: the message and a
# backtrace on standard error, exit status 99.
ddbrun 1 'panic\n' -- /bin/sh -c 'echo ready; sleep 30'
expect_status "panic exits 99" 99
grep -q "panic: from the debugger" "$T/log" && grep -q "^vkernel:   #2  0x" "$T/log" &&
    ok "panic prints its message and a backtrace" ||
    fail "panic prints its message and a backtrace" "$(head -5 "$T/log" | tr '\n' ';')"

# A long stop with a CPU that cannot park: the guest computing on CPU 1
# has its host stub stopped (SIGSTOP, as a host that does not run it),
# so it cannot answer the kick, and the machine stays stopped 6 s, past
# the 4 s the kick watchdog gives a starved guest.  The time stopped is
# not the guest's: once its stub runs again it answers and finishes.
# The guest may be in the kernel (a fault, say) when the stop comes; then
# its CPU parks and the case is not made: try again, three times at most.
stoprun() {
	rm -f "$T/fifo" && mkfifo "$T/fifo"
	"$VK" -v -m 128m -n 2 --initramfs "$SYSROOT" -- /bin/sh -c "
		taskset 2 sh -c 'echo ready; $loop' & wait; echo done" \
	    < "$T/fifo" > "$T/out" 2> "$T/log" &
	vk=$!
	exec 3> "$T/fifo"
	stubs=
	if waitfor "$T/out" ready; then
		sleep 0.3		# the loop computes: no exec, no new stub
		stubs=$(pgrep -P $vk)
		kill -STOP $stubs 2>/dev/null
		kill -INT $vk
		if waitfor "$T/out" "ddb: SIGINT"; then
			sleep 6
			printf 'continue\n' >&3
			waitfor "$T/out" "ddb: left"
		fi
		kill -CONT $stubs 2>/dev/null
	fi
	vkwait
}
for attempt in 1 2 3; do
	stoprun
	grep -q "other CPUs that did not stop: 1" "$T/out" && break
done
stopped=$(sed -n 's/.*ddb: left after \([0-9.]*\) s.*/\1/p' "$T/out")
grep -q "other CPUs that did not stop: 1" "$T/out" && grep -q '^loop-3000000$' "$T/out" &&
    grep -q '^done$' "$T/out" && ! grep -q "kick" "$T/log" &&
    ok "a guest that cannot answer a kick through a ${stopped} s stop lives on" ||
    fail "a guest that cannot answer a kick through a long stop lives on" \
	"status $status: $(grep -v '^ ' "$T/out" | tr '\n' ';') log: $(grep -i 'kick\|killed' "$T/log" | tr '\n' ';')"
