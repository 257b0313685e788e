#!/bin/sh
# The layers (docs/architecture.md), checked on the source text and on
# the objects: nothing above host/ calls the host directly, no file
# includes a header of a layer above its own, and (when the objects of
# BUILD, the first argument or build/, exist) no object uses a symbol
# defined by an object of a layer above its own.  Prints each violation
# and ends with "1 passed, 0 failed" or "0 passed, 1 failed" for
# tests/run.
set -u
cd "$(dirname "$0")/.." || exit 1
build=${1:-${BUILD:-build}}
bad=0

# Host calls above host/.  Calls through a table (fp->f_ops->read(...))
# and comment lines do not count; boot/main.c is the program's entry,
# the glue between the host process and the kernel, and may call the
# host (it parses the command line and reports through err(3)).
# kern/vdso/vdso.c is guest code (the vDSO every process maps), whose
# names are Linux's for its entry points.
hostcalls='clock_gettime|getrandom|pthread_[a-z_]+|open|mmap|munmap|read|write|pread|pwrite|syscall|fopen|close|fstat|poll|flock|ioctl|sigaction'
hits=$(grep -rnE "(^|[^.>A-Za-z0-9_])($hostcalls)\(|__thread" \
	kern vm fs dev net proc sys boot ddb --include='*.[chS]' |
	grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|/\*|//)' |
	grep -v '^boot/main\.c:' | grep -v '^kern/vdso/vdso\.c:')
if [ -n "$hits" ]; then
	echo "layers: host calls above host/ (give them a host/ function):"
	echo "$hits" | sed 's/^/  /'
	bad=1
fi

# Layers by path, low to high: host < kern < vm < fs, dev < net < proc < the
# file system and the devices that show or drive processes (procfs;
# pidfds and signalfds, files of a process and of its signals; the
# owners that signal-driven I/O signals; the tty
# and the console, which signal process groups) < sys < boot and ddb,
# which look into every layer (ddb is reached from below only through
# kdb_hook).  fs and dev may use each other; tests/ tools/ bench/ may
# use anything.
rank() {
	case $1 in
	host/*) echo 0 ;;
	kern/*) echo 1 ;;
	vm/*) echo 2 ;;
	fs/procfs/*|fs/pidfd*|fs/signalfd*|fs/fasync*|dev/tty*|dev/console*) echo 6 ;;
	fs/*|dev/*) echo 3 ;;
	net/*) echo 4 ;;
	proc/*) echo 5 ;;
	sys/*) echo 7 ;;
	boot/*|ddb/*) echo 8 ;;
	*) echo 9 ;;
	esac
}
order='host < kern < vm < fs, dev < net < proc < fs/procfs, fs/pidfd, fs/signalfd, fs/fasync, dev/tty*, dev/console < sys < boot, ddb'

# The includes that still point up, one "file folder" each with the
# reason.  The list may only shrink: a new upward include fails the check.
allowed='
'
up=$(grep -rnoE '^#include "(host|kern|vm|fs|dev|net|proc|sys|boot|ddb)/[^"]*"' \
	host kern vm fs dev net proc sys boot ddb --include='*.[chS]' |
    while IFS=: read -r file line inc; do
	to=${inc#\#include \"}
	to=${to%\"}
	[ "$(rank "$to")" -gt "$(rank "$file")" ] || continue
	printf '%s\n' "$allowed" | grep -q "^$file ${to%%/*}[[:space:]]" && continue
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
	echo "layers: includes of a layer above ($order):"
	echo "$up" | sed 's/^/  /'
	bad=1
fi

# Calls (and uses of data) that point up, read from the objects: an
# include kept low (a declaration in kern/ of a function defined in
# proc/) hides a call from the check above, not from this one.  For
# each object of the kernel, each undefined symbol that an object of a
# higher layer defines is a violation unless listed here, one
# "file symbol-or-folder reason" each.  The list may only shrink.
allowed_calls='
'
# An object whose source is gone (moved since it was built) is left out.
objs=$(cd "$build" 2>/dev/null &&
    find host kern vm fs dev net proc sys boot ddb -name '*.o' 2>/dev/null | sort)
objs=$(for o in $objs; do
	[ -f "${o%.o}.c" ] || [ -f "${o%.o}.S" ] && echo "$o"
    done)
if [ -z "$objs" ]; then
	echo "layers: no objects in $build: calls not checked (make builds them)"
else
	# "object symbol" for every global a kernel object defines or uses
	defs=$(cd "$build" && nm -A -g --defined-only $objs |
	    awk '{ sub(/:.*/, "", $1); print $1, $NF }')
	uses=$(cd "$build" && nm -A -u $objs |
	    awk '{ sub(/:.*/, "", $1); print $1, $NF }')
	src() {
		for s in "${1%.o}.c" "${1%.o}.S"; do
			[ -f "$s" ] && { echo "$s"; return; }
		done
		echo "$1"
	}
	calls=$(printf '%s\n%s\n' "$defs" "--" "$uses" | awk '
	    $1 == "--" { u = 1; next }
	    !u { def[$2] = $1; next }
	    ($2 in def) && def[$2] != $1 { print $1, $2, def[$2] }' |
	    while read -r obj sym dobj; do
		from=$(src "$obj")
		to=$(src "$dobj")
		[ "$(rank "$to")" -gt "$(rank "$from")" ] || continue
		echo "$from $sym $to"
	    done)
	upcalls=$(printf '%s\n' "$calls" | while read -r from sym to; do
		[ -n "$from" ] || continue
		printf '%s\n' "$allowed_calls" |
		    grep -qE "^$from ($sym|${to%%/*})[[:space:]]" && continue
		echo "  $from: $sym ($to)"
	    done)
	stale=$(printf '%s\n' "$allowed_calls" | awk 'NF >= 2 { print $1, $2 }' |
	    while read -r from what; do
		printf '%s\n' "$calls" |
		    grep -qE "^$from ($what [^ ]+|[^ ]+ $what/.*)\$" ||
		    echo "  $from $what"
	    done)
	if [ -n "$stale" ]; then
		echo "layers: allowed upward calls that are gone (shrink the list):"
		echo "$stale"
		bad=1
	fi
	if [ -n "$upcalls" ]; then
		echo "layers: calls into a layer above ($order):"
		echo "$upcalls"
		bad=1
	fi
fi

if [ $bad = 0 ]; then
	echo "layers: ok"
	echo "1 passed, 0 failed"
else
	echo "0 passed, 1 failed"
fi
exit $bad
