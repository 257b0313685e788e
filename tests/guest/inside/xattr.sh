# Extended attributes inside: none are kept (tests/guest/inside/c/xattr.c),
# musl and glibc builds.  Each prints ok/FAIL lines.
fail=0
for p in /t/inside/bin/xattr /t/inside/bin/xattr.glibc; do
	$p || { echo "FAIL $p: status $?"; fail=1; }
done
exit $fail
