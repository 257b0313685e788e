# stress-ng inside vkernel (issue 10): Debian's stress-ng, a dynamic
# program, with the ld.so and libraries ldd names beside it in a root of
# its own; each stressor runs a few seconds with two workers and
# --verify.  A stressor passes when stress-ng exits 0 with "successful
# run completed", its metrics count bogo operations, and no line says
# "fail:" or "finished prematurely" (stress-ng calls a run successful
# when a worker's pthread_create failed, so the status alone says
# little).
#
# STRESSNG_SET picks the stressors: "today" (the default, in make test),
# issue 10's six (threads, futexes, clone, fork, signals, switches),
# AF_UNIX's sockpair and sockfd (descriptors passed with SCM_RIGHTS;
# --sock --sock-domain unix asks AF_UNIX for protocol tcp, which Linux
# refuses too), issue 11's shared memory and IPC (POSIX and System V
# shared memory, semaphores and message queues, memfd), and the event
# files (eventfd, timerfd, signalfd, inotify), the POSIX timers (timer),
# and issue 12's sockets over lwIP's loopback (TCP connections, UDP and
# its flood, epoll and poll servers, many sockets, abused sockets, raw
# sockets of UDP and of everything, an ICMP flood with IP_HDRINCL), and
# the copies between descriptors (splice, tee, vmsplice, sendfile),
# pidfds, personality, utime and signal-driven I/O (sigio);
# "waiting", those that do not pass yet (none; sockdiag asks for
# NETLINK_SOCK_DIAG, which vkernel does not have); "all" (make
# test-threads); or a list of stressors.  STRESSNG_NCPUS: the -n values
# (default 1); STRESSNG_SECONDS: each run's length (default 3).
. "$(dirname "$0")/lib.sh"
today="signal switch pthread futex clone fork sockpair sockfd shm shm-sysv memfd sem sem-sysv msg eventfd timerfd sigfd inotify timer sock udp udp-flood epoll poll sockmany sockabuse rawudp rawsock icmp-flood splice tee vm-splice sendfile pidfd personality utime sigio"
waiting=""
case ${STRESSNG_SET:-today} in
today) stressors=$today ;;
waiting) stressors=$waiting ;;
all) stressors="$today $waiting" ;;
*) stressors=$STRESSNG_SET ;;
esac
secs=${STRESSNG_SECONDS:-3}

if ! command -v stress-ng >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stress-ng >/dev/null 2>&1 ||
	    { apt-get update -qq >/dev/null 2>&1 &&
	      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stress-ng >/dev/null 2>&1; }
fi
sng=$(command -v stress-ng) || { fail "stress-ng" "not installed: apt-get install stress-ng"; exit 0; }

# The root: busybox, stress-ng, its program interpreter and libraries.
stage=$BUILD/stressng-root
rm -rf "$stage" && mkdir -p "$stage/usr/bin"
cp "$sng" "$stage/usr/bin/stress-ng"
for lib in $(ldd "$sng" | grep -o '/[^ ]*'); do
	mkdir -p "$stage$(dirname "$lib")"
	cp -L "$lib" "$stage$lib"
done
tools/mkinitramfs "$BUILD/stressng.cpio" "$stage" >/dev/null ||
    { fail "stress-ng" "no root"; exit 0; }

for n in ${STRESSNG_NCPUS:-1}; do
	for s in $stressors; do
		what="--$s 2 --verify, ${secs} s, -n $n"
		# shm's two workers each keep 32 POSIX objects of 4 MiB in
		# /dev/shm and a written private anonymous 4 MiB beside each:
		# some 512 MiB, which 512 MiB of RAM cannot hold (a worker
		# dies of a page fault out of memory and its parent reads
		# "zero bytes"), no more than Linux's could.  sockpair's
		# workers each open socket pairs up to RLIMIT_NOFILE's hard
		# limit (4096: some 2000 pairs) and fill them, up to 208 KiB
		# each as on Linux: more than 512 MiB again.
		ram=512m
		[ "$s" = shm ] && ram=1g
		[ "$s" = sockpair ] && ram=2g
		timeout $((secs * 10 + 60)) "$VK" -n "$n" -m $ram --initramfs "$BUILD/stressng.cpio" -- \
		    /bin/sh -c "cd /tmp && stress-ng --$s 2 --timeout $secs --verify --metrics-brief 2>&1; echo status \$?" \
		    > "$T/out" 2> "$T/log" < /dev/null
		vst=$?
		cp "$T/out" "$BUILD/stressng-$s-n$n.out"
		ops=$(awk -v s="$s" '$2 == "metrc:" && $4 == s && $5 ~ /^[0-9]+$/ { print $5 }' "$T/out")
		if grep -q 'fail:\|finished prematurely' "$T/out"; then
			fail "$what" "$(grep 'fail:\|finished prematurely' "$T/out" | head -1)"
		elif ! grep -q '^status 0$' "$T/out"; then
			fail "$what" "$(grep '^status' "$T/out" || echo "no status, vkernel status $vst")"
		elif ! grep -q 'successful run completed' "$T/out" ||
		    grep -q 'unsuccessful run' "$T/out"; then
			fail "$what" "no successful run"
		elif [ -z "$ops" ] || [ "$ops" = 0 ]; then
			fail "$what" "no bogo operations in its metrics"
		else
			ok "$what: $ops bogo ops"
		fi
	done
done
