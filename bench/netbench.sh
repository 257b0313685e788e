#!/bin/sh
# The network benchmark (make bench; root, for the tap's namespace):
# bench/guest/netb.c at both ends of each path, one table of medians in
# build/nbench.table.  Figures are reported, never asserted.
#
#   native   both ends on the host's loopback
#   tap      vkernel -I vknb0:10.98.0.2/24 in a namespace made here, the
#            host end on the tap's side, 10.98.0.1
#   slirp    vkernel -I slirp,restrict=on,hostfwd=...: the host end on the loopback,
#            the guest reaching it as 10.0.2.2, and a forward back
#   UML      User-Mode Linux (UML, default linux.uml) booted on the same
#            initramfs with its tap transport (eth0=tuntap) on a second
#            tap of the namespace, vknbu0: the guest 10.98.1.2, the host
#            end 10.98.1.1; with bench/umlxstate.so preloaded where UML
#            alone cannot run here (bench/kernbench.sh says why)
#
# Rows: TCP throughput guest->host and host->guest, TCP and UDP 1-byte
# round trips (the guest the client, the host echoing), AF_UNIX stream
# ping-pong inside, and the host's ICMP echo to the guest (answered by
# the guest's stack with no process involved: the driver's own round
# trip).  NBENCH_RUNS (default 3) runs per figure, NBENCH_SECONDS (3) per
# throughput run; NBENCH_ROWS (g2h h2g tcprr udprr unix ping) and
# NBENCH_COLUMNS (native tap slirp uml) choose a part.  The last columns
# are ratios, how many times faster vkernel's tap and slirp paths are
# than UML's tap and vkernel's tap than native (throughput over
# throughput, the other's time over vkernel's).  NBENCH_VKERNEL runs
# another build's vkernel on the same images (two builds back to back).
# Below the table, each run of a round-trip row: its mean, median and
# slowest round trip (a mean far above its median was a stall).
set -u
build=${BUILD:-build}
runs=${NBENCH_RUNS:-3}
secs=${NBENCH_SECONDS:-3}
n_rr=${NBENCH_RR:-2000}
rows=${NBENCH_ROWS:-g2h h2g tcprr udprr unix ping}
cols=" ${NBENCH_COLUMNS:-native tap slirp uml} "
mtu=${NBENCH_MTU:-65517}
vk=${NBENCH_VKERNEL:-$build/vkernel}
table=$build/nbench.table
stage=$build/nbench-root
dir=$build/nbench-out
ns=vknb$$
p=$((40000 + $$ % 10000))
rm -rf "$stage" "$dir" && mkdir -p "$stage/t" "$dir"
musl-gcc -static -O2 -Wall -Werror -o "$stage/t/netb" bench/guest/netb.c || exit 1
# UML's init: the interface up, netb with the arguments the kernel's
# command line gave as nb1..nb4 (the kernel passes name=value words it
# does not know to init's environment), then power off.
cat > "$stage/t/umlinit" <<'EOF'
#!/bin/sh
mount -t proc proc /proc
ip link set lo up
ip addr add 10.98.1.2/24 dev eth0
ip link set eth0 mtu $nbmtu up || ip link set eth0 up
echo "UMLMTU $(ip link show eth0 | sed -n 's/.* mtu \([0-9]*\).*/\1/p')"
/t/netb $nb1 $nb2 $nb3 $nb4
poweroff -f
EOF
chmod +x "$stage/t/umlinit"
gcc -O2 -Wall -Werror -o "$build/netb" bench/guest/netb.c || exit 1
tools/mkinitramfs "$build/nbench.cpio" "$stage" >/dev/null || exit 1
netb=$build/netb
pids=
cleanup() {
	for pg in $pids; do kill -- "-$pg" 2>/dev/null; done
	ip netns del "$ns" 2>/dev/null
}
trap cleanup EXIT

# bg CMD...: runs CMD in a process group of its own, remembered in $pids.
# shellcheck disable=SC2046
bg() {
	setsid "$@" > "$dir/bg.out" 2>&1 &
	pids="$pids $!"
	last=$!
}
stop() { kill -- "-$1" 2>/dev/null; wait "$1" 2>/dev/null; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }
result() { sed -n "s/^RESULT $1 \([0-9.]*\) .*/\1/p"; }

# guest TRANSPORT CMD: one vkernel run of CMD (netb's arguments) inside.
guest() {
	t=$1
	shift
	case $t in
	tap) ip netns exec "$ns" timeout 60 "$vk" -m 256m --initramfs "$build/nbench.cpio" \
	    -I vknb0:10.98.0.2/24 -- /t/netb "$@" < /dev/null > "$dir/gout.$t" 2> "$dir/vk.log" ;;
	uml) set -- nb1="$1" ${2:+nb2="$2"} ${3:+nb3="$3"} ${4:+nb4="$4"}
	    # shellcheck disable=SC2086
	    ip netns exec "$ns" timeout -k 5 60 env $uml_env "$uml" mem=256M \
		initrd="$build/nbench.cpio" rdinit=/t/umlinit \
		eth0=tuntap,vknbu0,fe:fd:0a:62:01:02 nbmtu="$mtu" "$@" con0=fd:0,fd:1 con=null \
		quiet < /dev/null 2> "$dir/uml.log" | tr -d '\r' > "$dir/gout.$t" ;;
	slirp) timeout 60 "$vk" -m 256m --initramfs "$build/nbench.cpio" \
	    -I "slirp,restrict=on,hostfwd=tcp:127.0.0.1:$((p + 1))-:$p" -- /t/netb "$@" \
	    < /dev/null > "$dir/gout.$t" 2> "$dir/vk.log" ;;
	esac
	cat "$dir/gout.$t" >> "$dir/guest.all"
	cat "$dir/gout.$t"
}
# The host side of TRANSPORT: a command prefix.
host() { case $1 in tap|uml) echo "ip netns exec $ns" ;; esac; }
peer() { case $1 in tap) echo 10.98.0.1 ;; uml) echo 10.98.1.1 ;; slirp) echo 10.0.2.2 ;; *) echo 127.0.0.1 ;; esac; }
# Where the host reaches a guest server on port $p.
target() { case $1 in tap) echo "10.98.0.2 $p" ;; uml) echo "10.98.1.2 $p" ;; slirp) echo "127.0.0.1 $((p + 1))" ;; *) echo "127.0.0.1 $p" ;; esac; }

measure() {	# measure ROW TRANSPORT: one figure, the median of $runs
	row=$1 t=$2
	for i in $(seq "$runs"); do
		case $row in
		g2h) bg $(host "$t") "$netb" sink "$p"
		     sleep 0.3
		     if [ "$t" = native ]; then "$netb" send 127.0.0.1 "$p" "$secs"
		     else guest "$t" send "$(peer "$t")" "$p" "$secs"; fi | result tcp-send
		     stop "$last" ;;
		h2g) if [ "$t" = native ]; then
			bg "$netb" sink "$p"
			sleep 0.3
			"$netb" send 127.0.0.1 "$p" "$secs" | result tcp-send
			stop "$last"
		     else
			guest "$t" sink "$p" > "$dir/g" &
			g=$!
			# shellcheck disable=SC2046
			timeout 60 $(host "$t") "$netb" send $(target "$t") "$secs" > /dev/null
			wait "$g"
			result tcp-sink < "$dir/g"
		     fi ;;
		tcprr|udprr)
		     bg $(host "$t") "$netb" echo "$p"
		     sleep 0.3
		     if [ "$t" = native ]; then "$netb" "$row" 127.0.0.1 "$p" "$n_rr"
		     else guest "$t" "$row" "$(peer "$t")" "$p" "$n_rr"; fi |
			 tee -a "$dir/rr.$row.$t" |
			 result "$( [ "$row" = tcprr ] && echo tcp || echo udp)-round-trip"
		     stop "$last" ;;
		unix) if [ "$t" = native ]; then "$netb" unixpp "$n_rr"
		      else guest "$t" unixpp "$n_rr"; fi | result unix-stream-round-trip ;;
		ping) [ "$t" = tap ] || continue
		      ip netns exec "$ns" timeout 60 "$vk" -m 64m --initramfs "$build/nbench.cpio" \
			  -I vknb0:10.98.0.2/24 -- /bin/sleep 8 < /dev/null 2> "$dir/vk.log" &
		      g=$!
		      sleep 1
		      ip netns exec "$ns" busybox ping -c 50 -i 0.02 -W 2 10.98.0.2 |
			  sed -n 's/.*time=\([0-9.]*\) ms/\1/p' | median |
			  awk '{ if ($1 != "-") printf "%.1f\n", $1 * 1000; }'
		      wait "$g" ;;
		esac
	done | median
}

tapok=
if [ "$(id -u)" = 0 ] && [ -c /dev/net/tun ] && ip netns add "$ns" 2>/dev/null; then
	ip -n "$ns" link set lo up
	ip -n "$ns" tuntap add dev vknb0 mode tap
	ip -n "$ns" addr add 10.98.0.1/24 dev vknb0
	ip -n "$ns" link set vknb0 mtu "$mtu" up
	ip -n "$ns" tuntap add dev vknbu0 mode tap
	ip -n "$ns" addr add 10.98.1.1/24 dev vknbu0
	ip -n "$ns" link set vknbu0 mtu "$mtu" up
	tapok=1
else
	echo "netbench: no tap column: needs root, /dev/net/tun and ip netns" >&2
fi
# UML as bench/kernbench.sh runs it: with bench/umlxstate.so preloaded
# when UML 6.1 alone cannot start a process on this host's XSAVE size.
uml=${UML:-linux.uml}
uml_env=
uml_why=$(bench/umlcheck.sh "$uml" "$build/nbench-umlcheck") && uml_why=
case $uml_why in
*"ptrace set fp regs failed, errno = 14"*)
	gcc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$build/umlxstate.so" bench/umlxstate.c -ldl
	so=$(cd "$build" && pwd)/umlxstate.so
	UML_PRELOAD=$so bench/umlcheck.sh "$uml" "$build/nbench-umlcheck" >/dev/null &&
	    uml_env="LD_PRELOAD=$so" uml_why= ;;
esac
[ -z "$uml_why" ] && [ -z "$tapok" ] && uml_why="its tap transport needs root, /dev/net/tun and ip netns"
[ -n "$uml_why" ] && echo "netbench: UML: unavailable ($uml_why): its column stays empty" >&2

# ratio A B KIND: how many times A beats B: A/B for throughput (KIND
# rate), B/A for times; "-" when either is missing.
ratio() {
	awk -v a="$1" -v b="$2" -v k="$3" 'BEGIN {
		if (a == "-" || b == "-" || a + 0 == 0 || b + 0 == 0) { print "-"; exit }
		printf "%.2f\n", k == "rate" ? a / b : b / a }'
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
{
	printf '%-31s %8s %8s %8s %8s  %8s %9s %10s\n' "" native tap slirp UML \
	    tap/UML slirp/UML tap/native
	for row in $rows; do
		case $row in
		g2h) label="TCP guest->host (MB/s)" ;;
		h2g) label="TCP host->guest (MB/s)" ;;
		tcprr) label="TCP round trip, 1 byte (us)" ;;
		udprr) label="UDP round trip, 1 byte (us)" ;;
		unix) label="AF_UNIX stream round trip (us)" ;;
		ping) label="ICMP echo host->guest (us)" ;;
		esac
		nat=- tap=- sl=- um=- k=time
		case $row in g2h|h2g) k=rate ;; esac
		want() { case $cols in *" $1 "*) true ;; *) false ;; esac; }
		want native && [ "$row" != ping ] && nat=$(measure "$row" native)
		want tap && [ -n "$tapok" ] && tap=$(measure "$row" tap)
		want slirp && [ "$row" != unix ] && [ "$row" != ping ] && sl=$(measure "$row" slirp)
		want uml && [ -z "$uml_why" ] && [ "$row" != ping ] && um=$(measure "$row" uml)
		printf '%-31s %8s %8s %8s %8s  %8s %9s %10s\n' "$label" "$nat" "$tap" "$sl" "$um" \
		    "$(ratio "$tap" "$um" $k)" "$(ratio "$sl" "$um" $k)" "$(ratio "$tap" "$nat" $k)"
	done
	if [ -n "$uml_why" ]; then echo "UML: unavailable ($uml_why)"
	else
		um_mtu=$(sed -n 's/^UMLMTU \([0-9]*\).*/\1/p' "$dir/guest.all" | head -1)
		echo "UML: $uml, tap transport (eth0=tuntap, MTU ${um_mtu:-?}${um_mtu:+$( [ "$um_mtu" != "$mtu" ] && echo ": its eth0 refuses $mtu")})${uml_env:+, bench/umlxstate.so preloaded}"
	fi
	echo "the taps' MTU: $mtu (NBENCH_MTU), which vkernel's vke0 takes"
	echo "ratios: how many times faster the first is (throughput a/b, times b/a)"
	grep -q 'Address family not supported' "$dir/guest.all" 2>/dev/null &&
	    echo "vkernel: no AF_INET sockets in this kernel yet: only the ICMP row has figures"
	echo "(AF_UNIX: the tap column is vkernel's, UML's its own, no network involved; '-': not measured)"
	# Each run's round trips: a mean far above its median is a stall
	# (netb's STATS), not a slow path.
	for f in "$dir"/rr.*; do
		[ -f "$f" ] || continue
		awk -v w="${f##*/rr.}" '/^RESULT/ { m[++n] = $3 } /^STATS/ { s[++k] = $4 "/" $7 }
		    END { printf "%s, the runs: mean (median/max) in us:", w
			for (i = 1; i <= n; i++) printf " %s (%s)", m[i], s[i]; print "" }' "$f"
	done
	echo "load average before: $load0, after: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$table"
cat "$table"
