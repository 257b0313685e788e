# Exec in every shape (tests/system/c/execloop.c: fork+exec, vfork+exec,
# exec from a threaded process, a chain of execs), its results compared
# with Linux, in density and latency placement and on two CPUs.  In
# density exec lets the old stub go as an exit does and hosts the image
# in a pool stub (vmspace_exec_keeps); elsewhere it keeps the stub.
# Either way every stub taken is given back by the end (forkstat's
# creates and kills), and in density each exec took one.
. "$(dirname "$0")/lib.sh"

native=$BUILD/system-root/t/bin/execloop
want=$("$native" 100)
for opts in "-l density" "-l latency" "-n 2"; do
	VKERNEL_FORKSTAT=1 timeout 300 "$VK" $opts -m 256m \
	    --initramfs "$SYSROOT" -- /t/bin/execloop 100 > "$T/out" 2> "$T/log" < /dev/null
	status=$?
	got=$(tr -d '\r' < "$T/out")
	if [ "$status" = 0 ] && [ "$got" = "$want" ]; then
		ok "$opts: $(echo "$got" | tr '\n' ';')"
	else
		fail "$opts" "status $status: $(echo "$got" | tr '\n' ';')"
	fi
	creates=$(sed -n 's/.*host: creates \([0-9]*\) .*/\1/p' "$T/log")
	kills=$(sed -n 's/.*host: kills \([0-9]*\) .*/\1/p' "$T/log")
	if [ -z "$creates" ] || [ "$creates" != "$kills" ]; then
		fail "$opts: stubs given back" "creates ${creates:-?}, kills ${kills:-?}"
	else
		ok "$opts: stubs given back: $creates taken, $kills given back"
	fi
	# init, 100 forks, their 100 execs and 100 vfork children's execs
	# (which take a stub wherever they run): 301 or more in density
	if [ "$opts" = "-l density" ]; then
		if [ "$(nproc)" -lt 2 ]; then
			skip "density: exec in a pool stub: one host core, no spare one"
		elif [ "${creates:-0}" -ge 301 ]; then
			ok "density: exec in a pool stub: $creates stubs taken"
		else
			fail "density: exec in a pool stub" "only ${creates:-0} stubs taken"
		fi
	fi
done
