# UDP round trips over a host tap (-I tapN:addr/len), as root, inside a
# network namespace the test makes (the tap's host side 10.96.0.1/24, the
# guest 10.96.0.2): tests/system/c/udprr.c echoes on the host side and
# makes 2,000 numbered 1-byte round trips inside, each waited for at most
# 1 s.  None may be lost (a reply not delivered to the blocked reader, a
# frame dropped on the way), and their median must stay far below what a
# slow path would give: a generous bound (3 ms, some 100 times a quiet
# host's 25-30 us), the figures printed.  Skipped without /dev/net/tun,
# ip netns or root.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ] || [ ! -c /dev/net/tun ] || ! command -v ip >/dev/null ||
    ! ip netns list >/dev/null 2>&1; then
	skip "needs root, /dev/net/tun and ip netns"
	exit 0
fi
ns=vku$$
port=$((30000 + $$ % 10000))
echopid=
cleanup() {
	[ -n "$echopid" ] && kill "$echopid" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
if ! ip netns add "$ns" || ! ip -n "$ns" link set lo up ||
    ! ip -n "$ns" tuntap add dev vkudp0 mode tap ||
    ! ip -n "$ns" addr add 10.96.0.1/24 dev vkudp0 ||
    ! ip -n "$ns" link set vkudp0 up; then
	skip "cannot make a namespace with a tap device"
	exit 0
fi
# The guest's test programs are static: the same udprr runs on the host.
udprr=$BUILD/system-root/t/bin/udprr
ip netns exec "$ns" "$udprr" echo "$port" 90 > "$T/echo" 2>&1 &
echopid=$!
waitfor "$T/echo" '^listening' || { fail "the host's echo" "$(cat "$T/echo")"; exit 0; }

ip netns exec "$ns" timeout 120 "$VK" -v -m 64m --initramfs "$SYSROOT" \
    -I vkudp0:10.96.0.2/24 -- /t/bin/udprr rr 10.96.0.1 "$port" 2000 \
    > "$T/out" 2> "$T/log" < /dev/null
line=$(grep '^rr ' "$T/out")
set -- $line
# rr N lost L stale S mean M median D max X
if [ "$#" = 12 ] && [ "$4" = 0 ]; then
	ok "2000 UDP round trips over tap, none lost (mean $8 us, median ${10} us, max ${12} us)"
else
	fail "2000 UDP round trips over tap, none lost" "${line:-$(tail -3 "$T/log")}"
fi
if [ "$#" = 12 ] && awk -v m="${10}" 'BEGIN { exit !(m < 3000) }'; then
	ok "their median (${10} us) is under 3 ms"
else
	fail "the UDP round trips' median is under 3 ms" "${line:-no figures}"
fi
grep -qi 'panic\|sanitizer' "$T/log" && fail "no panic" "$(grep -i 'panic\|sanitizer' "$T/log")"
exit 0
