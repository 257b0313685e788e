#!/bin/sh
# A long shell loop (issue 8): one shell runs 10,000 pipelines, so its
# stub maps, loses (every fork write-protects its pages) and maps again
# the same few pages tens of thousands of times.  The host-mapping budget
# used to remember the lost mappings and, once full, evict them: it
# unmapped pages a fault had just mapped, and the loop guard killed the
# shell after 500 to 900 rounds ("host will not map").
. "$(dirname "$0")/lib.sh"
# Under the sanitizers the kernel is 2-3 times slower: fewer rounds, still
# several times past where the old budget failed.
case $BUILD in *asan*) n=${SHLOOP_ROUNDS:-3000} ;; *) n=${SHLOOP_ROUNDS:-10000} ;; esac
start=$(date +%s)
timeout 560 "$VK" -v -m 128m --initramfs "$SYSROOT" -- /bin/sh -c \
    "i=0; while [ \$i -lt $n ]; do echo \$i | busybox md5sum >/dev/null || exit 3; i=\$((i+1)); done; echo done \$i" \
    > "$T/out" 2> "$T/log" < /dev/null
status=$?
expect_status "$n pipelines in one shell: exit status" 0
expect_output "$n pipelines in one shell: all ran" "done $n"
if grep -q "will not map\|killing the guest" "$T/log"; then
	fail "no guest killed" "$(grep "will not map\|killing" "$T/log" | head -1)"
else
	ok "no guest killed"
fi
echo "# shloop: $n rounds in $(( $(date +%s) - start )) s" >&2
