# vke over a host tap device (-I tapN:addr/len), as root, inside a
# network namespace the test makes: the tap's host side is 10.99.0.1/24
# in the namespace, the guest 10.99.0.2/24.  Nothing leaves the
# namespace.  The host pings the guest (lwIP answers ICMP echo itself),
# small, near the MTU and fragmented, in bursts; the namespace learns the
# guest's MAC by ARP; the guest fetches a file from a busybox httpd in
# the namespace and the host one from busybox httpd inside, checksums
# compared; the guest pings the host (busybox ping over a raw ICMP
# socket); the guest sends 2 MB to a reader that pauses a second; TCP
# checksums across the tap's offload (tests/system/c/tapcsum.c, run on
# the host side).
# Skipped (with the reason) without
# /dev/net/tun, ip netns or root.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ] || [ ! -c /dev/net/tun ] || ! command -v ip >/dev/null ||
    ! ip netns list >/dev/null 2>&1; then
	skip "needs root, /dev/net/tun and ip netns"
	exit 0
fi
ns=vke$$
port=$((20000 + $$ % 10000))
vkpid=
srvpid=
uppid=
cleanup() {
	[ -n "$vkpid" ] && kill "$vkpid" 2>/dev/null
	[ -n "$srvpid" ] && kill "$srvpid" 2>/dev/null
	[ -n "$uppid" ] && kill "$uppid" 2>/dev/null
	# ip netns exec forks: what it ran (httpd) outlives its pid above.
	ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
if ! ip netns add "$ns" || ! ip -n "$ns" link set lo up ||
    ! ip -n "$ns" tuntap add dev vktap0 mode tap ||
    ! ip -n "$ns" addr add 10.99.0.1/24 dev vktap0 ||
    ! ip -n "$ns" link set vktap0 up; then
	skip "cannot make a namespace with a tap device"
	exit 0
fi
inns() { ip netns exec "$ns" "$@"; }

# The file the guest fetches, served from the namespace.
mkdir -p "$T/www"
head -c 300000 /dev/urandom > "$T/www/f"
want=$(md5sum < "$T/www/f" | cut -d' ' -f1)
inns busybox httpd -f -p "10.99.0.1:$port" -h "$T/www" &
srvpid=$!
# A reader that makes the guest wait: it reads nothing for a second, so
# the guest's window fills and, the link quiet, the ACK that opens it
# reaches the guest's stack on its CPU, whose batch then sends the
# queued segments through the tcpip thread (net/if_vke.c).  Its nc's
# input stays open: at its end nc would shut its sending half, and the
# guest's nc, seeing the end, quit before it had sent everything.
: > "$T/up"
inns timeout 40 sh -c "sleep 30 | busybox nc -l -p $((port + 1)) | (sleep 1; cat > $T/up)" &
uppid=$!

# The guest: fetches, makes a file of its own, serves it, waits.
guest="
wget -q -O /tmp/got http://10.99.0.1:$port/f 2>/tmp/err && echo got \$(md5sum < /tmp/got) ||
    echo wget failed: \$(cat /tmp/err)
mkdir -p /tmp/www && head -c 200000 /dev/urandom > /tmp/www/g
echo served \$(md5sum < /tmp/www/g)
httpd -p 80 -h /tmp/www 2>/tmp/err || echo httpd failed: \$(cat /tmp/err)
ping -c 3 -W 2 10.99.0.1 >/tmp/err 2>&1 && echo ping ok \$(grep -o 'min/avg/max.*' /tmp/err) ||
    echo ping failed: \$(tail -1 /tmp/err)
head -c 2000000 /dev/urandom > /tmp/up
echo sent \$(md5sum < /tmp/up)
echo ready
nc 10.99.0.1 $((port + 1)) < /tmp/up
sleep 30
"
inns timeout 60 "$VK" -v -m 64m --initramfs "$SYSROOT" -I vktap0:10.99.0.2/24 \
    -- /bin/sh -c "$guest" > "$T/out" 2> "$T/log" < /dev/null &
vkpid=$!
waitfor "$T/out" '^ready'

# Host to guest: ICMP echo, answered by lwIP with no socket at all.
if inns busybox ping -c 3 -W 2 10.99.0.2 > "$T/ping" 2>&1; then
	ok "the host pings the guest ($(grep -o 'min/avg/max = .*' "$T/ping"))"
else
	fail "the host pings the guest" "$(tail -2 "$T/ping")"
fi
inns busybox ping -c 3 -W 2 -s 1472 10.99.0.2 > "$T/ping" 2>&1 &&
    ok "full-size frames (1500-byte packets)" ||
    fail "full-size frames (1500-byte packets)" "$(tail -2 "$T/ping")"
inns busybox ping -c 3 -W 2 -s 8000 10.99.0.2 > "$T/ping" 2>&1 &&
    ok "fragmented 8 KiB echoes, reassembled and answered" ||
    fail "fragmented 8 KiB echoes" "$(tail -2 "$T/ping")"
# Four pingers at once, 50 each: frames arrive in batches per interrupt.
for i in 1 2 3 4; do
	inns busybox ping -q -c 50 -i 0.01 -W 2 10.99.0.2 > "$T/burst$i" 2>&1 &
done
wait_burst=0
for i in 1 2 3 4; do
	while ! grep -q 'packet loss' "$T/burst$i" 2>/dev/null; do
		sleep 0.2
		wait_burst=$((wait_burst + 1))
		[ $wait_burst -gt 150 ] && break 2
	done
done
got=$(cat "$T"/burst? | sed -n 's/.* \([0-9]*\) packets received.*/\1/p' |
    awk '{ s += $1 } END { print s + 0 }')
[ "$got" -ge 190 ] && ok "200 echoes from 4 pingers at once: $got answered" ||
    fail "200 echoes from 4 pingers at once" "$got answered"

mac=$(sed -n 's/^.*] vke0: vktap0, address \(.*\)$/\1/p' "$T/log")
inns ip neigh show 10.99.0.2 | grep -q "lladdr $mac" &&
    ok "ARP: the namespace knows the guest as $mac" ||
    fail "ARP: the namespace knows the guest's MAC" \
	"$(inns ip neigh show 10.99.0.2), vkernel said \"$mac\""

# Checksums with the tap's offload (net/if_vke.c): a SYN whose checksum
# is broken, injected on the host side with no word from the host's
# stack, is dropped; a whole one is answered, and the answer's checksum
# (partial, finished as a NIC would) is right.
inns "$BUILD/system-root/t/bin/tapcsum" vktap0 10.99.0.1 10.99.0.2 "$mac" > "$T/csum" 2>&1
grep -q '^corrupt: dropped' "$T/csum" &&
    ok "a TCP segment with a broken checksum from the host is dropped" ||
    fail "a TCP segment with a broken checksum from the host is dropped" "$(cat "$T/csum")"
grep -q '^good: checksum ok' "$T/csum" &&
    ok "the guest's answer to a whole one has a right checksum $(sed -n 's/^good: checksum ok //p' "$T/csum")" ||
    fail "the guest's answer to a whole one has a right checksum" "$(cat "$T/csum")"

# The guest's sockets (AF_INET, from the stack over this driver).
if grep -q 'wget failed:.*\(not supported\|not implemented\)' "$T/out"; then
	skip "guest wget: no AF_INET sockets in this kernel yet ($(grep 'wget failed' "$T/out"))"
elif grep -q "^got $want" "$T/out"; then
	ok "the guest fetches 300 KB from the namespace, checksum matches"
else
	fail "the guest fetches 300 KB from the namespace" "$(grep -E '^(got|wget)' "$T/out")"
fi
served=$(sed -n 's/^served \([0-9a-f]*\).*/\1/p' "$T/out")
if grep -q 'httpd failed' "$T/out"; then
	skip "guest httpd: $(grep 'httpd failed' "$T/out")"
elif inns timeout 20 busybox wget -q -O "$T/g" http://10.99.0.2/g 2> "$T/err" &&
    [ "$(md5sum < "$T/g" | cut -d' ' -f1)" = "$served" ]; then
	ok "the host fetches 200 KB from httpd inside, checksum matches"
else
	fail "the host fetches from httpd inside" "$(cat "$T/err") $(grep httpd "$T/out")"
fi
if grep -q '^ping ok' "$T/out"; then
	ok "the guest pings the host ($(sed -n 's/^ping ok //p' "$T/out"))"
else
	fail "the guest pings the host" "$(grep 'ping' "$T/out")"
fi
sent=$(sed -n 's/^sent \([0-9a-f]*\).*/\1/p' "$T/out")
for i in $(seq 100); do
	[ "$(wc -c < "$T/up")" -ge 2000000 ] && break
	sleep 0.2
done
if grep -q 'wget failed:.*\(not supported\|not implemented\)' "$T/out"; then
	skip "guest nc: no AF_INET sockets in this kernel yet"
elif [ -n "$sent" ] && [ "$(md5sum < "$T/up" | cut -d' ' -f1)" = "$sent" ]; then
	ok "2 MB from the guest to a reader that pauses, checksum matches"
else
	fail "2 MB from the guest to a reader that pauses" \
	    "$(wc -c < "$T/up" 2>/dev/null) bytes; $(grep '^sent' "$T/out")"
fi
grep -qi 'panic\|sanitizer' "$T/log" && fail "no panic" "$(grep -i 'panic\|sanitizer' "$T/log")"
exit 0
