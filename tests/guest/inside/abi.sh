# vkernel's own answers where Linux's depend on the host's build or its
# address-space layout: forgebase and userrange, and compat32's
# 32-bit system calls (this host's Linux has IA32 emulation, vkernel
# answers as a Linux without it), musl and glibc builds.  Each prints
# ok/FAIL lines and exits non-zero on a failure.
fail=0
for p in /t/inside/bin/forgebase /t/inside/bin/forgebase.glibc \
    /t/inside/bin/userrange /t/inside/bin/userrange.glibc \
    "/t/bin/compat32 inside" "/t/bin/compat32.glibc inside"; do
	$p || { echo "FAIL $p: status $?"; fail=1; }
done
exit $fail
