# DHCP from the slirp back-end (issue 12): vke0 comes up without an
# address (-I slirp,dhcp), busybox udhcpc gets 10.0.2.15 and the route
# through 10.0.2.2 over AF_PACKET sockets and configures them with its
# default script (ifconfig, route), and the guest then fetches from a
# server on the host's loopback.  Restricted: nothing leaves the host.
# Then tests/system/c/pktsock.c checks packet sockets themselves.
. "$(dirname "$0")/lib.sh"

pweb=$((40000 + $$ % 10000))
srvpid=
cleanup() {
	[ -n "$srvpid" ] && kill "$srvpid" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

mkdir -p "$T/www"
head -c 100000 /dev/urandom > "$T/www/f"
want=$(md5sum < "$T/www/f" | cut -d' ' -f1)
busybox httpd -f -p "127.0.0.1:$pweb" -h "$T/www" &
srvpid=$!

guest="
ifconfig vke0 | grep -q 'inet addr' && echo before: addressed || echo before: none
udhcpc -i vke0 -n -q > /tmp/u 2>&1; echo udhcpc status \$?; cat /tmp/u
ifconfig vke0 | sed -n 's/.*inet addr:\([0-9.]*\).*Mask:\([0-9.]*\).*/addr \1 \2/p'
route -n | awk '\$1 == \"0.0.0.0\" { print \"default\", \$2, \$8 }'
ip addr show vke0 | sed -n 's/^ *inet \([0-9./]*\).*/ip addr \1/p'
wget -q -O /tmp/got http://10.0.2.2:$pweb/f 2>/tmp/err && echo got \$(md5sum < /tmp/got) ||
    echo wget failed: \$(cat /tmp/err)
/t/bin/pktsock
"
boot -I slirp,restrict=on,dhcp -- /bin/sh -c "$guest"
grep -q '^before: none' "$T/out" && ok "-I slirp,dhcp: vke0 up without an address" ||
    fail "-I slirp,dhcp: vke0 without an address" "$(head -3 "$T/out")"
grep -q '^udhcpc status 0' "$T/out" && grep -q 'lease of 10.0.2.15 obtained' "$T/out" &&
    ok "udhcpc gets a lease of 10.0.2.15 from slirp" ||
    fail "udhcpc gets a lease" "$(grep -i udhcpc "$T/out")"
grep -q '^addr 10.0.2.15 255.255.255.0$' "$T/out" && grep -q '^ip addr 10.0.2.15/24$' "$T/out" &&
    ok "its script configures 10.0.2.15/24 (ifconfig, ip addr)" ||
    fail "10.0.2.15/24 configured" "$(grep -E '^(addr|ip addr)' "$T/out")"
grep -q '^default 10.0.2.2 vke0$' "$T/out" && ok "and the default route via 10.0.2.2" ||
    fail "the default route via 10.0.2.2" "$(grep '^default' "$T/out")"
grep -q "^got $want" "$T/out" && ok "the guest fetches from the host over the lease" ||
    fail "the guest fetches from the host" "$(grep -E '^(got|wget)' "$T/out")"
grep -q '^pktsock: 0 failed' "$T/out" &&
    ok "packet sockets: bind, sendto, recvfrom, poll, EPERM/EINVAL/EFAULT ($(grep '^queued' "$T/out"))" ||
    fail "packet sockets" "$(grep -E '^(FAIL|pktsock)' "$T/out")"
