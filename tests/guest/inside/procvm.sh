# /proc/vmstat and /proc/self/mountinfo inside vkernel: their format is
# Linux's, their values this machine's (so checked here, not against the
# host's).  Prints ok/FAIL lines; the status is 1 if anything failed.
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
field() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

check "vmstat: name value lines" '! grep -qv "^[a-z_]* [0-9][0-9]*$" /proc/vmstat'
for k in nr_free_pages nr_file_pages nr_dirty pgpgin pgpgout pswpin pswpout pgfault pgfree; do
	check "vmstat: $k" '[ -n "$(field $k)" ]'
done
check "vmstat: free pages as meminfo" '[ $(($(field nr_free_pages) * 4)) -le $(awk "/^MemTotal:/ { print \$2 }" /proc/meminfo) ]'
f0=$(field pgfault)
dd if=/dev/zero of=/dev/null bs=1M count=4 2>/dev/null
check "vmstat: faults count" '[ $(field pgfault) -gt $f0 ]'
check "vmstat: no swap" '[ $(field pswpin) = 0 ] && [ $(field pswpout) = 0 ]'

mi=/proc/self/mountinfo
check "mountinfo: one line a mount" '[ $(wc -l < $mi) = $(wc -l < /proc/mounts) ]'
check "mountinfo: fields" '! awk "NF != 10 || \$7 != \"-\" || \$4 != \"/\" { bad = 1 } END { exit !bad }" $mi'
rootid=$(awk '$5 == "/" { print $1 }' $mi)
check "mountinfo: the root is its own parent" '[ "$(awk "\$5 == \"/\" { print \$2 }" $mi)" = "$rootid" ]'
check "mountinfo: /proc under the root" '[ "$(awk "\$5 == \"/proc\" { print \$2 }" $mi)" = "$rootid" ]'
check "mountinfo: /dev/shm under /dev" '[ "$(awk "\$5 == \"/dev/shm\" { print \$2 }" $mi)" = "$(awk "\$5 == \"/dev\" { print \$1 }" $mi)" ]'
# maj:min is the st_dev of the mount's files.
dev=$(stat -c %d /proc)
check "mountinfo: st_dev of /proc" '[ "$(awk "\$5 == \"/proc\" { split(\$3, d, \":\"); print d[1] * 256 + d[2] }" $mi)" = "$dev" ]'
check "mountinfo: type and source" 'grep -q " / /proc rw - proc proc rw$" $mi'
mkdir -p /tmp/mi && mount -t tmpfs scratch /tmp/mi
check "mountinfo: a new mount" 'grep -q " / /tmp/mi rw - tmpfs scratch rw$" $mi'
umount /tmp/mi
check "mountinfo: gone" '! grep -q /tmp/mi $mi'
exit $fail
