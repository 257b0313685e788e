# Hostile futex calls from threads of four processes (inside/c/futexfuzz.c),
# musl and glibc: the kernel survives and every process ends.
fail=0
for p in /t/inside/bin/futexfuzz /t/inside/bin/futexfuzz.glibc; do
	$p || { echo "FAIL $p: status $?"; fail=1; }
done
exit $fail
