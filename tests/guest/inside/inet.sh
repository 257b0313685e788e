# The network tools of busybox inside: ifconfig and route over the
# interface ioctls and /proc/net, nc over TCP on the loopback, netstat
# over /proc/net/tcp and /proc/net/unix.  Each check prints ok or FAIL; the status is 1 if
# any failed.
fail=0
check() {	# check WHAT COMMAND...: ok if the command succeeds
	what=$1; shift
	if "$@" >/dev/null 2>&1; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}
out=$(ifconfig lo)
check "ifconfig lo address" sh -c "echo '$out' | grep -q 'inet addr:127.0.0.1  Mask:255.0.0.0'"
check "ifconfig lo flags" sh -c "echo '$out' | grep -q 'UP LOOPBACK RUNNING  MTU:65536'"
check "ifconfig lo inet6" sh -c "echo '$out' | grep -q 'inet6 addr: ::1/128 Scope:Host'"
check "ifconfig lists lo" sh -c "ifconfig | grep -q '^lo '"
check "ifconfig no such interface" sh -c "! ifconfig nosuch0"
check "if_inet6" grep -q '^00000000000000000000000000000001 01 80 10 80 *lo$' /proc/net/if_inet6
check "route table header" sh -c "route -n | grep -q '^Destination'"
check "route without a gateway's interface" sh -c "route add default gw 10.9.9.9 2>&1 | grep -q 'unreachable'"

# The server's stdin stays open a while: at its end busybox nc shuts its
# side down, and a client that saw that first would quit unsent.
sleep 5 | nc -l -p 5555 > /tmp/nc.out &
for i in $(seq 100); do
	netstat -ltn | grep -q ':5555 ' && break
	sleep 0.1
done
check "netstat -ltn shows the listener" sh -c "netstat -ltn | grep -q ':5555 .*LISTEN'"
check "/proc/net/tcp6 listener" sh -c "cat /proc/net/tcp /proc/net/tcp6 | grep -q ':15B3 .* 0A '"
echo "hello over tcp" | nc 127.0.0.1 5555
for i in $(seq 100); do
	grep -q "hello over tcp" /tmp/nc.out && break
	sleep 0.1
done
check "nc carried the line" grep -qx "hello over tcp" /tmp/nc.out
check "netstat -tn TIME_WAIT" sh -c "netstat -tn | grep -q 'TIME_WAIT'"
check "/proc/net/dev lists lo" grep -q '^ *lo: ' /proc/net/dev

syslogd -n -O /tmp/syslog.out &
for i in 1 2 3 4 5 6 7 8 9 10; do
	grep -q ' /dev/log$' /proc/net/unix && break
	sleep 0.1
done
check "/proc/net/unix lists syslogd's /dev/log" grep -q '^0000000000000000: 00000001 00000000 00000000 0002 01 *[0-9]* /dev/log$' /proc/net/unix
check "netstat -x" sh -c "netstat -x | grep -q 'DGRAM .*/dev/log'"
kill $!
wait	# syslogd, and the nc server's sleep

ifconfig lo mtu 1500
check "ifconfig mtu" sh -c "ifconfig lo | grep -q 'MTU:1500'"
ifconfig lo mtu 65536
check "ifconfig mtu back" sh -c "ifconfig lo | grep -q 'MTU:65536'"
ifconfig lo down
check "ifconfig down" sh -c "! ifconfig lo | grep -q ' UP '"
ifconfig lo up
check "ifconfig up" sh -c "ifconfig lo | grep -q 'UP LOOPBACK RUNNING'"
exit $fail
