# vkernel's own answers where Linux's depend on the host's build or its
# address-space layout: the programs of /t/inside/bin (musl and glibc),
# each printing ok/FAIL lines and exiting non-zero on a failure.
fail=0
for p in /t/inside/bin/*; do
	"$p" || { echo "FAIL $(basename "$p"): status $?"; fail=1; }
done
exit $fail
