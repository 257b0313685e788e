# docs/syscalls.md is what tools/sysdoc makes of sys/syscalls.tbl.h:
# the committed list of implemented calls is never stale.
. "$(dirname "$0")/lib.sh"

"$BUILD/sysdoc" > "$T/syscalls.md"
if cmp -s "$T/syscalls.md" docs/syscalls.md; then
	ok "docs/syscalls.md is current"
else
	fail "docs/syscalls.md is current" "stale: run make docs/syscalls.md"
fi
