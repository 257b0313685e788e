# Copy-on-write right after fork (tests/system/c/forkcow.c): the parent's
# writes at once after fork never show in the child, nor the child's in
# the parent, nor a writing thread's of the parent in the child.  fork
# may leave the parent's old host mappings in place until its next
# resume (vmspace_fork, MADV_INVAL_DEFER): in density and latency
# placement on one CPU, and on two CPUs, where the child may start
# before the parent's resume and must wait for it (pmap_settle).
. "$(dirname "$0")/lib.sh"

native=$BUILD/system-root/t/bin/forkcow
want=$("$native" 300)
for opts in "-l density" "-l latency" "-n 2"; do
	boot $opts -- /t/bin/forkcow 300
	got=$(tr -d '\r' < "$T/out")
	if [ "$status" = 0 ] && [ "$got" = "$want" ]; then
		ok "$opts: $(echo "$got" | head -1)"
	else
		fail "$opts" "status $status: $(echo "$got" | tr '\n' ';')"
	fi
done
