# busybox ping and ping6 inside (raw ICMP sockets, as root) over the
# loopback (tests/guest/c/icmpsock.c compares the sockets themselves
# with Linux).  Each check prints ok or FAIL; the status is 1 if any
# failed.
fail=0
check() {	# check WHAT COMMAND...: ok if the command succeeds
	what=$1; shift
	if "$@" >/dev/null 2>&1; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}
out=$(ping -c 3 127.0.0.1 2>&1)
echo "$out" | sed -n 's/^round-trip/  ping 127.0.0.1: &/p'
check "ping -c 3 127.0.0.1" sh -c "echo '$out' | grep -q '3 packets transmitted, 3 packets received, 0% packet loss'"
check "ping's replies" sh -c "[ \$(echo '$out' | grep -c '^64 bytes from 127.0.0.1: seq=[0-2] ttl=64 ') = 3 ]"
out=$(ping6 -c 2 ::1 2>&1)
echo "$out" | sed -n 's/^round-trip/  ping6 ::1: &/p'
check "ping6 -c 2 ::1" sh -c "echo '$out' | grep -q '2 packets transmitted, 2 packets received, 0% packet loss'"
check "ping -s 1400 -c 1 127.0.0.1" sh -c "ping -s 1400 -c 1 127.0.0.1 | grep -q '^1408 bytes from'"
check "ping -c 1 to a closed network fails" sh -c "! ping -c 1 -W 1 10.123.45.67"
# netstat -w reads /proc/net/raw: a running ping's socket, port 1 (ICMP).
ping -c 3 127.0.0.1 > /dev/null &
for i in $(seq 20); do
	netstat -wan | grep -q '^raw .* 0\.0\.0\.0:1 ' && break
	sleep 0.1
done
check "netstat -w shows ping's raw socket" sh -c "netstat -wan | grep -q '^raw .* 0\.0\.0\.0:1 '"
wait
check "/proc/net/icmp header" grep -q '^ *sl  local_address' /proc/net/icmp
exit $fail
