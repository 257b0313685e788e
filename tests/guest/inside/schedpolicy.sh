# Scheduling policies (inside/c/schedpolicy.c), musl and glibc builds:
# the output must be Linux's, kept here since the host's sandbox refuses
# the calls natively.
expected=$(cat <<'END'
policy 0: max: 0
policy 0: min: 0
policy 1: max: 99
policy 1: min: 1
policy 2: max: 99
policy 2: min: 1
policy 3: max: 0
policy 3: min: 0
policy 5: max: 0
policy 5: min: 0
policy 4: max: -1 Invalid argument
policy 4: min: -1 Invalid argument
policy 7: max: -1 Invalid argument
policy 7: min: -1 Invalid argument
policy -1: max: -1 Invalid argument
policy -1: min: -1 Invalid argument
getscheduler: 0
getscheduler(-1): -1 Invalid argument
getscheduler(no such pid): -1 No such process
getparam: 0
priority 0
getparam(NULL): -1 Invalid argument
set SCHED_BATCH: 0
getscheduler: 3
SCHED_OTHER with priority 5: -1 Invalid argument
SCHED_FIFO with priority 0: -1 Invalid argument
policy 9: -1 Invalid argument
NULL param: -1 Invalid argument
bad param: -1 Bad address
setparam 0: 0
setparam 3: -1 Invalid argument
getattr 48: 0
  size 48 policy 3 flags 0 nice 0 priority 0
getattr 56: 0
  size 56 policy 3 flags 0 nice 0 priority 0
getattr 4096: 0
  size 56 policy 3 flags 0 nice 0 priority 0
getattr 47: -1 Invalid argument
getattr flags 1: -1 Invalid argument
set SCHED_IDLE|RESET_ON_FORK: 0
getscheduler: 1073741829
getattr: 0
  size 56 policy 5 flags 1 nice 0 priority 0
child: getscheduler 5
back to SCHED_OTHER: 0
getscheduler: 0
END
)
fail=0
for p in /t/inside/bin/schedpolicy /t/inside/bin/schedpolicy.glibc; do
	out=$($p)
	if [ "$out" != "$expected" ]; then
		echo "FAIL $p"
		printf '%s\n' "$expected" > /tmp/sp.expected
		printf '%s\n' "$out" | diff /tmp/sp.expected - | head -10
		fail=1
	fi
done
exit $fail
