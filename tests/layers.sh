#!/bin/sh
# The layers (docs/architecture.md), checked on the source text: nothing
# above host/ calls the host directly.  Prints each violation and ends
# with "1 passed, 0 failed" or "0 passed, 1 failed" for tests/run.
set -u
cd "$(dirname "$0")/.." || exit 1
bad=0

# Host calls above host/.  Calls through a table (fp->f_ops->read(...))
# and comment lines do not count; kern/main.c is the program's entry,
# the glue between the host process and the kernel, and may call the
# host (it parses the command line and reports through err(3)).
hostcalls='clock_gettime|getrandom|pthread_[a-z_]+|open|mmap|munmap|read|write|pread|pwrite|syscall|fopen|close|fstat|poll|flock|ioctl|sigaction'
hits=$(grep -rnE "(^|[^.>A-Za-z0-9_])($hostcalls)\(|__thread" \
	kern vm fs dev --include='*.[chS]' |
	grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|/\*|//)' |
	grep -v '^kern/main\.c:')
if [ -n "$hits" ]; then
	echo "layers: host calls above host/ (give them a host/ function):"
	echo "$hits" | sed 's/^/  /'
	bad=1
fi

if [ $bad = 0 ]; then
	echo "layers: ok"
	echo "1 passed, 0 failed"
else
	echo "0 passed, 1 failed"
fi
exit $bad
