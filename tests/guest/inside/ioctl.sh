# ioctl on the console, a terminal inside only: TCGETS into a read-only
# page is EFAULT and changes nothing (musl and glibc builds).
fail=0
for p in /t/bin/ioctls /t/bin/ioctls.glibc; do
	$p tty || { echo "FAIL $p: status $?"; fail=1; }
done
exit $fail
