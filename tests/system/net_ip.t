# `ip` over AF_NETLINK NETLINK_ROUTE on a vke interface (-I slirp,
# restricted: 10.0.2.15/24, gateway 10.0.2.2, an IPv6 link-local
# address): busybox ip lists links, addresses and routes, brings vke0
# down and up, changes its MTU and address and the default route (what
# ifconfig and route see too), and is refused, with the reason logged,
# what lwIP cannot hold.  Then the host's iproute2 ip (dynamic, copied
# into the image with its libraries) does the same and reads the
# interface's counters (IFLA_STATS64).  lo's cases are
# tests/guest/inside/ip.sh.
. "$(dirname "$0")/lib.sh"

# The image: the system root plus, when the host has it, iproute2's ip.
stage=$T/stage
mkdir -p "$stage/t"
cp -a "$BUILD/system-root/." "$stage/"
iproute=
for ip in /usr/sbin/ip /sbin/ip /bin/ip; do
	if [ -x "$ip" ] && "$ip" -V 2>/dev/null | grep -q iproute2; then
		cp -L "$ip" "$stage/t/ip"
		for lib in $(ldd "$ip" | grep -o '/[^ ]*' | sort -u); do
			mkdir -p "$stage$(dirname "$lib")"
			cp -L "$lib" "$stage$lib"
		done
		iproute=/t/ip
		break
	fi
done
tools/mkinitramfs "$T/ip.cpio" "$stage" > /dev/null || { fail "image" "mkinitramfs failed"; exit 0; }

guest='
s() { echo "== $1"; }
s link; ip link show vke0
s addr; ip addr show dev vke0
s addr6; ip -6 addr show dev vke0
s route; ip route
s route6; ip -6 route
s get; ip route get 10.0.2.2; ip route get 192.0.2.9; ip route get 10.0.2.15
s down; ip link set vke0 down; ip link show vke0; ip route; ifconfig vke0
s up; ip link set vke0 up mtu 1400; ip link show vke0; ifconfig vke0
s second; ip addr add 10.0.0.2/24 dev vke0 2>&1
s deladdr; ip addr del 10.0.2.15/24 dev vke0; echo status $?; ip addr show dev vke0; ip route
s addaddr; ip addr add 10.0.0.2/24 dev vke0; echo status $?; ip addr show dev vke0; ip route; ifconfig vke0
s default; ip route add default via 10.0.0.1; echo status $?; ip route; route -n
s again; ip route add default via 10.0.0.1 2>&1
s replace; ip route replace default via 10.0.0.3; echo status $?; ip route
s deldefault; ip route del default; echo status $?; ip route
s other; ip route add 192.168.0.0/16 via 10.0.0.1 2>&1
s v6add; ip -6 addr add 2001:db8::5/64 dev vke0; echo status $?; ip -6 addr show dev vke0; ip -6 route
s v6del; ip -6 addr del 2001:db8::5/64 dev vke0; echo status $?; ip -6 addr show dev vke0
s v6route; ip -6 route add default via fe80::1 dev vke0 2>&1
s neigh; ip neigh; echo status $?
if [ -n "'"$iproute"'" ]; then
	ip=/t/ip
	s iplink; $ip link show vke0
	s ipstats; $ip -s link show vke0
	s ipaddr; $ip addr show dev vke0
	s iproute; $ip route
	s ipdown; $ip link set dev vke0 down; $ip link show vke0
	s ipup; $ip link set dev vke0 up mtu 1500; $ip link show vke0
	s ipdel; $ip addr del 10.0.0.2/24 dev vke0; echo status $?
	s ipadd; $ip addr add 10.0.2.15/24 dev vke0; echo status $?; $ip -br addr show dev vke0
	s ipdefault; $ip route add default via 10.0.2.2 dev vke0; echo status $?; $ip route; $ip route get 192.0.2.9
	s ipbad; $ip route add 172.16.0.0/12 via 10.0.2.2 2>&1
fi
s end
'
timeout 60 "$VK" -v -m 128m --initramfs "$T/ip.cpio" -I slirp,restrict=on \
    -- /bin/sh -c "$guest" > "$T/out" 2> "$T/log" < /dev/null

# sec NAME: the output of the guest's section NAME.
sec() { awk -v s="== $1" '$0 == s { on = 1; next } /^== / { on = 0 } on' "$T/out"; }
# expect WHAT SECTION PATTERN: the section's output holds the pattern.
expect() {
	sec "$2" | grep -q -- "$3" && ok "$1" ||
	    fail "$1" "no '$3' in: $(sec "$2" | head -12 | tr '\n' '|')"
}
# lacks WHAT SECTION PATTERN: it does not.
lacks() {
	sec "$2" | grep -q -- "$3" && fail "$1" "'$3' in: $(sec "$2" | head -12 | tr '\n' '|')" ||
	    ok "$1"
}

grep -q '^== end' "$T/out" || fail "the guest ran through" "$(tail -5 "$T/out") $(tail -5 "$T/log")"
mac=$(sed -n 's/.*vke0: slirp (restricted), address \([0-9a-f:]*\).*/\1/p' "$T/log")
expect "ip link: vke0 up, slirp's MTU" link '^2: vke0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 21885 '
expect "ip link: the boot's MAC address" link "link/ether $mac brd ff:ff:ff:ff:ff:ff"
expect "ip addr: 10.0.2.15/24" addr 'inet 10.0.2.15/24 brd 10.0.2.255 scope global vke0'
expect "ip -6 addr: a link-local address" addr6 'inet6 fe80::[0-9a-f:]*/64 scope link'
expect "ip route: the default route" route '^default via 10.0.2.2 dev vke0'
expect "ip route: the subnet" route '^10.0.2.0/24 dev vke0 .*src 10.0.2.15'
expect "ip -6 route: fe80::/64" route6 '^fe80::/64 dev vke0'
expect "ip route get: on the link" get '^10.0.2.2 dev vke0 *src 10.0.2.15'
expect "ip route get: through the gateway" get '^192.0.2.9 via 10.0.2.2 dev vke0 *src 10.0.2.15'
expect "ip route get: our own address" get '^local 10.0.2.15 dev lo'
expect "ip link set down" down '^2: vke0: <BROADCAST,MULTICAST,LOWER_UP>'
lacks "a down interface has no routes" down '^10.0.2.0/24'
lacks "ifconfig sees it down" down ' UP '
expect "ip link set up mtu 1400" up '<BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1400 '
expect "ifconfig sees the MTU" up 'MTU:1400'
expect "a second IPv4 address: refused" second 'Operation not supported'
expect "ip addr del" deladdr '^status 0'
lacks "the address is gone" deladdr 'inet 10.0.2.15'
lacks "its routes are gone" deladdr '^default\|^10.0.2.0'
expect "ip addr add" addaddr 'inet 10.0.0.2/24 brd 10.0.0.255 scope global vke0'
expect "its subnet route" addaddr '^10.0.0.0/24 dev vke0 .*src 10.0.0.2'
expect "ifconfig sees the address" addaddr 'inet addr:10.0.0.2  Bcast:10.0.0.255  Mask:255.255.255.0'
expect "ip route add default" default '^default via 10.0.0.1 dev vke0'
expect "route -n sees it" default '^0.0.0.0  *10.0.0.1  *0.0.0.0  *UG'
expect "a second default: exists" again 'File exists'
expect "ip route replace default" replace '^default via 10.0.0.3 dev vke0'
expect "ip route del default" deldefault '^status 0'
lacks "no default left" deldefault '^default'
expect "another route: refused" other 'Operation not supported'
expect "ip -6 addr add" v6add 'inet6 2001:db8::5/64 scope global'
expect "its prefix route" v6add '^2001:db8::/64 dev vke0'
expect "ip -6 addr del" v6del '^status 0'
lacks "the IPv6 address is gone" v6del '2001:db8::5'
expect "IPv6 routes: refused" v6route 'Operation not supported'
expect "ip neigh: an empty table" neigh '^status 0'
grep -q 'netlink: lwIP routes by its interfaces' "$T/log" &&
    ok "the refusal is logged with its reason" ||
    fail "the refusal is logged" "$(grep netlink "$T/log")"

if [ -z "$iproute" ]; then
	skip "iproute2: no ip on the host"
	exit 0
fi
expect "iproute2 ip link" iplink 'vke0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1400 qdisc noqueue state UP'
tx=$(sec ipstats | awk '/TX:/ { getline; print $2 }')
[ -n "$tx" ] && [ "$tx" -gt 0 ] && ok "iproute2 ip -s link: counters ($tx packets sent)" ||
    fail "iproute2 ip -s link: counters" "$(sec ipstats | tr '\n' '|')"
expect "iproute2 ip addr" ipaddr 'inet 10.0.0.2/24 brd 10.0.0.255 scope global vke0'
expect "iproute2 ip route" iproute '10.0.0.0/24 dev vke0 proto kernel scope link src 10.0.0.2'
expect "iproute2 ip link set down" ipdown 'state DOWN'
expect "iproute2 ip link set up mtu" ipup '<BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 .*state UP'
expect "iproute2 ip addr del" ipdel '^status 0'
expect "iproute2 ip addr add" ipadd 'vke0 *UP *10.0.2.15/24'
expect "iproute2 ip route add default" ipdefault '^default via 10.0.2.2 dev vke0'
expect "iproute2 ip route get" ipdefault '^192.0.2.9 via 10.0.2.2 dev vke0 src 10.0.2.15'
expect "iproute2: another route refused" ipbad 'Operation not supported'
exit 0
