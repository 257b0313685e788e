# The vDSO: clock_gettime, gettimeofday and time through libc make no
# system call (none in --strace's trace for 1000 of each, where the
# same loop through syscall(2) shows every one), and /proc/PID/maps
# names its two mappings as Linux does.  Prints what a call cost both
# ways (a figure, not asserted).
. "$(dirname "$0")/lib.sh"

trace() {
	timeout 120 "$VK" -m 64m --initramfs "$SYSROOT" \
	    --strace=trace=clock_gettime,gettimeofday,time -- "$@" \
	    > "$T/out" 2> "$T/trace" < /dev/null
	status=$?
}

trace /t/bin/clockloop 1000
expect_status "clockloop exits 0" 0
n=$(grep -cE '^(clock_gettime|gettimeofday|time)\(' "$T/trace")
[ "$n" -le 2 ] && ok "1000 clock_gettime, gettimeofday, time: $n traps" ||
    fail "1000 clock_gettime, gettimeofday, time make no system call" "$n in the trace"
grep -qE '^r-xp 00000000 00:00 0 +\[vdso\]$' "$T/out" && ok "maps names [vdso] r-xp" ||
    fail "maps names [vdso] r-xp" "$(cat "$T/out")"
grep -qE '^r--p 00000000 00:00 0 +\[vvar\]$' "$T/out" && ok "maps names [vvar] r--p" ||
    fail "maps names [vvar] r--p" "$(cat "$T/out")"
echo "vdso: $(grep 'ns per call' "$T/out")"

trace /t/bin/clockloop 1000 sys
n=$(grep -cE '^(clock_gettime|gettimeofday|time)\(' "$T/trace")
[ "$n" -ge 3000 ] && ok "the same loop through syscall(2): $n traps" ||
    fail "the same loop through syscall(2) traps each time" "$n in the trace"
echo "vdso: $(grep 'ns per call' "$T/out")"

# Across CPUs: tests/guest/c/vdso.c on -n 2 (two threads interleaving
# vDSO and system-call reads of every clock, never backwards), its
# output the same as natively.
mkdir -p "$T/root"
if musl-gcc -static -O2 -o "$T/root/vdso" tests/guest/c/vdso.c &&
    tools/mkinitramfs "$T/vdso.cpio" "$T/root" >/dev/null; then
	"$T/root/vdso" > "$T/native" 2>&1
	timeout 300 "$VK" -n 2 -m 64m --initramfs "$T/vdso.cpio" -- /vdso \
	    > "$T/out" 2> "$T/log" < /dev/null
	status=$?
	expect_status "vdso.c on -n 2 exits 0" 0
	diff "$T/native" "$T/out" > "$T/diff" && ok "vdso.c on -n 2: as natively" ||
	    fail "vdso.c on -n 2: as natively" "$(head -20 "$T/diff")"
else
	fail "vdso.c builds" "musl-gcc or mkinitramfs failed"
fi
