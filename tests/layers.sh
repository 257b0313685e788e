#!/bin/sh
# The layers (docs/architecture.md), checked on the source text: nothing
# above host/ calls the host directly, and no folder includes a header of
# a folder above it.  Prints each violation and ends with "1 passed,
# 0 failed" or "0 passed, 1 failed" for tests/run.
set -u
cd "$(dirname "$0")/.." || exit 1
bad=0

# Host calls above host/.  Calls through a table (fp->f_ops->read(...))
# and comment lines do not count; boot/main.c is the program's entry,
# the glue between the host process and the kernel, and may call the
# host (it parses the command line and reports through err(3)).
# kern/vdso/vdso.c is guest code (the vDSO every process maps), whose
# names are Linux's for its entry points.
hostcalls='clock_gettime|getrandom|pthread_[a-z_]+|open|mmap|munmap|read|write|pread|pwrite|syscall|fopen|close|fstat|poll|flock|ioctl|sigaction'
hits=$(grep -rnE "(^|[^.>A-Za-z0-9_])($hostcalls)\(|__thread" \
	kern vm fs dev proc sys boot --include='*.[chS]' |
	grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|/\*|//)' |
	grep -v '^boot/main\.c:' | grep -v '^kern/vdso/vdso\.c:')
if [ -n "$hits" ]; then
	echo "layers: host calls above host/ (give them a host/ function):"
	echo "$hits" | sed 's/^/  /'
	bad=1
fi

# Includes point down: host < kern < vm < fs, dev < proc < sys < boot (fs
# and dev may include each other; tests/ tools/ bench/ may include
# anything).
rank() {
	case $1 in
	host) echo 0 ;;
	kern) echo 1 ;;
	vm) echo 2 ;;
	fs|dev) echo 3 ;;
	proc) echo 4 ;;
	sys) echo 5 ;;
	boot) echo 6 ;;
	*) echo 9 ;;
	esac
}

# The arrows that still run up, one "file folder" each with the reason.
# The list may only shrink: a new upward include fails the check.
allowed='
kern/kern_thread.c vm	kernel stacks come from the page allocator
'
up=$(grep -rnoE '^#include "(host|kern|vm|fs|dev|proc|sys|boot)/[^"]*"' \
	host kern vm fs dev proc sys boot --include='*.[chS]' |
    while IFS=: read -r file line inc; do
	from=${file%%/*}
	to=${inc#\#include \"}
	to=${to%%/*}
	[ "$(rank "$to")" -gt "$(rank "$from")" ] || continue
	printf '%s\n' "$allowed" | grep -q "^$file $to[[:space:]]" && continue
	echo "$file:$line: $inc"
    done)
stale=$(printf '%s\n' "$allowed" | awk 'NF >= 2 { print $1, $2 }' |
    while read -r file to; do
	grep -qE "^#include \"$to/" "$file" 2>/dev/null || echo "$file $to"
    done)
if [ -n "$stale" ]; then
	echo "layers: allowed upward includes that are gone (shrink the list):"
	echo "$stale" | sed 's/^/  /'
	bad=1
fi
if [ -n "$up" ]; then
	echo "layers: includes of a folder above (host < kern < vm < fs, dev < proc < sys < boot):"
	echo "$up" | sed 's/^/  /'
	bad=1
fi

if [ $bad = 0 ]; then
	echo "layers: ok"
	echo "1 passed, 0 failed"
else
	echo "0 passed, 1 failed"
fi
exit $bad
