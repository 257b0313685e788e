# busybox ip over AF_NETLINK NETLINK_ROUTE on lo (the vke cases are
# tests/system/net_ip.t): links, addresses, routes, and changes that
# the interface ioctls see too.  Each check prints ok or FAIL; the
# status is 1 if any failed.
fail=0
check() {	# check WHAT COMMAND...: ok if the command succeeds
	what=$1; shift
	if "$@" >/dev/null 2>&1; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
}
has() {		# has WHAT PATTERN COMMAND...: ok if the output holds the pattern
	what=$1 pat=$2; shift 2
	out=$("$@" 2>&1)
	if printf '%s\n' "$out" | grep -q -- "$pat"; then echo "ok   $what"
	else echo "FAIL $what: no '$pat' in:"; printf '%s\n' "$out"; fail=1; fi
}

has "ip link lists lo" '^1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 ' ip link
has "ip link: lo's address" 'link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00' ip link show lo
has "ip addr: 127.0.0.1/8" 'inet 127.0.0.1/8 scope host lo' ip addr
has "ip addr: ::1" 'inet6 ::1/128 scope host' ip addr show dev lo
has "ip -6 addr: ::1" 'inet6 ::1/128 scope host' ip -6 addr
check "ip -4 addr has no inet6" sh -c "! ip -4 addr | grep -q inet6"
check "ip link show of a missing interface fails" sh -c "! ip link show nosuch0"
check "ip route: the main table has nothing on lo" sh -c "[ -z \"\$(ip route)\" ]"
check "ip neigh: an empty table" ip neigh
has "ip route get 127.0.0.1" '^local 127.0.0.1 dev lo' ip route get 127.0.0.1
has "ip route get: no route off lo" 'unreachable' ip route get 10.9.9.9

ip link set lo mtu 1500
has "ip link set mtu" 'mtu 1500 ' ip link show lo
has "ifconfig sees ip's mtu" 'MTU:1500' ifconfig lo
ip link set lo mtu 65536
has "ip link set mtu back" 'mtu 65536 ' ip link show lo
ip link set lo down
check "ip link set down" sh -c "ip link show lo | grep -q '<LOOPBACK,LOWER_UP>'"
check "ifconfig sees ip's down" sh -c "! ifconfig lo | grep -q ' UP '"
ip link set lo up
has "ip link set up" '<LOOPBACK,UP,LOWER_UP>' ip link show lo

ip -6 addr add 2001:db8::1/64 dev lo
has "ip -6 addr add" 'inet6 2001:db8::1/64 scope global' ip -6 addr show dev lo
has "ip -6 addr add twice: exists" 'File exists' ip -6 addr add 2001:db8::1/64 dev lo
ip -6 addr del 2001:db8::1/64 dev lo
check "ip -6 addr del" sh -c "! ip -6 addr show dev lo | grep -q 2001:db8::1"
has "ip -6 addr add /48: not expressible" 'not supported' ip -6 addr add 2001:db8::1/48 dev lo
# What no interface may hold (Linux's ipv6_add_addr), and a netmask with
# a hole (Linux's bad_mask): refused, nothing changed.
has "ip -6 addr add ::" 'Cannot assign' ip -6 addr add ::/64 dev lo
has "ip -6 addr add a multicast address" 'Cannot assign' ip -6 addr add ff02::5/64 dev lo
check "ip -6 addr: neither added" sh -c "! ip -6 addr show dev lo | grep -q -e 'inet6 ::/' -e ff02::5"
has "ifconfig netmask with a hole" 'Invalid argument' ifconfig lo netmask 255.0.255.0
has "ip addr: the netmask kept" 'inet 127.0.0.1/8 ' ip addr show dev lo
has "ip addr add a second IPv4 address: not expressible" 'not supported' ip addr add 10.1.1.1/8 dev lo
has "ip addr del an address lo lacks" 'Cannot assign' ip addr del 10.1.1.1/8 dev lo
has "ip route add default via nowhere" 'unreachable' ip route add default via 10.9.9.9
has "ip route del default without one" 'No such process' ip route del default
has "ip route add to a table" 'not supported' ip route add 10.5.0.0/16 dev lo table 100
exit $fail
