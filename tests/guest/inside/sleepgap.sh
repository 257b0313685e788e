# A sleeper stays responsive under an unprivileged fork bomb
# (inside/c/sleepgap.c), built with musl and with glibc: each prints its
# worst lateness, and ok or FAIL against a generous bound.  The status
# is 1 if either failed.
fail=0
for p in /t/inside/bin/sleepgap /t/inside/bin/sleepgap.glibc; do
	out=$($p 4 256) || fail=1
	printf '%s\n' "$out" | sed "s|^\(ok  \|FAIL\) *|&$(basename $p): |;s|^sleeper|$(basename $p): sleeper|"
done
exit $fail
