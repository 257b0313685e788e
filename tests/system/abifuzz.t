# The trap ABI fuzzer (c/abifuzz.c): children as uid 65534 jump into the
# stub's text with random registers, scribble on its pages, forge reports
# and signal frames, make random system calls.  The kernel survives it:
# the fuzzer finishes, the machine answers afterwards, and vkernel exits
# with init's status.  ABIFUZZ_SEEDS and ABIFUZZ_COUNT make it longer
# (make fuzz-abi).
. "$(dirname "$0")/lib.sh"

for seed in ${ABIFUZZ_SEEDS:-1 2}; do
	timeout 600 "$VK" -v -m 64m --initramfs "$SYSROOT" -- /bin/sh -c "
	    /t/bin/abifuzz $seed ${ABIFUZZ_COUNT:-250} | tail -1
	    echo after: \$(echo alive | cat)" > "$T/out" 2> "$T/log" < /dev/null
	status=$?
	grep '^abifuzz: seed' "$T/out"
	if [ $status = 0 ] && grep -q '^after: alive$' "$T/out" &&
	    grep -q '^abifuzz: seed' "$T/out" && ! grep -q 'panic\|Sanitizer\|runtime error' "$T/log"; then
		ok "seed $seed: the kernel survives"
	else
		fail "seed $seed: the kernel survives" "status $status, $(grep -m1 'panic\|ERROR\|runtime error' "$T/log")$(tail -1 "$T/out")"
	fi
done
