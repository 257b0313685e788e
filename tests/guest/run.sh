#!/bin/sh
# Guest tests: each t/NAME.sh runs as PID 1 inside vkernel (busybox sh,
# in /tmp of an initramfs) and natively (busybox sh, in a scratch
# directory); stdout and exit status must match.  Each inside/NAME.sh
# runs only inside (what it does or reads is this machine's, not the
# host's) and must exit 0.  The C programs of c/ are built with
# musl-gcc -static and gcc -static into the image's /t/bin (and natively
# run from the build directory); those of inside/c/ (vkernel's own
# behaviour, not Linux's) into /t/inside/bin, for inside/ scripts only.
# Last line: "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-build}
vk=$build/vkernel
stage=$(cd "$build" && pwd)/guest-root || exit 1	# BUILD may be absolute
rm -rf "$stage" && mkdir -p "$stage/t/bin" "$stage/t/inside/bin"
cp "$here"/t/*.sh "$stage/t/"
cp "$here"/inside/*.sh "$stage/t/inside/"
command -v musl-gcc >/dev/null || {
	if [ "$(id -u)" = 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq musl-tools >/dev/null
	else echo "guest tests need musl-gcc: apt-get install musl-tools" >&2; exit 1; fi
}
# Each program twice: with musl and with glibc, both static, stripped:
# the image (some 56 MiB) lives in the guest's 256 MiB of RAM, in a
# root tmpfs of half of it, and forkbomb's root bomb needs what is left
# to reach the process limit before memory runs out.
for c in "$here"/c/*.c; do
	musl-gcc -static -s -O2 -Wall -Werror -o "$stage/t/bin/$(basename "$c" .c)" "$c" || exit 1
	gcc -static -s -O2 -Wall -Werror -o "$stage/t/bin/$(basename "$c" .c).glibc" "$c" || exit 1
done
for c in "$here"/inside/c/*.c; do
	b=$stage/t/inside/bin/$(basename "$c" .c)
	musl-gcc -static -s -O2 -Wall -Werror -o "$b" "$c" || exit 1
	gcc -static -s -O2 -Wall -Werror -o "$b.glibc" "$c" || exit 1
done
# Dynamically linked (dyn/dyn*.c, gcc without -static) beside the host's
# ld.so and the libraries ldd names, copied into the image at the same
# paths; the other dyn/ programs static (dynamic.sh runs them).
mkdir -p "$stage/t/dyn"
for c in "$here"/dyn/*.c; do
	case $(basename "$c") in
	dyn*) gcc -O2 -Wall -Werror -o "$stage/t/dyn/$(basename "$c" .c)" "$c" || exit 1 ;;
	*) gcc -static -O2 -Wall -Werror -o "$stage/t/dyn/$(basename "$c" .c)" "$c" || exit 1 ;;
	esac
done
cp /bin/bash "$stage/t/dyn/bash" || exit 1	# t/bash.sh: Debian's, dynamic
for lib in $( (ldd "$stage/t/dyn/dynhello"; ldd "$stage/t/dyn/bash") |
    grep -o '/[^ ]*' | sort -u); do
	mkdir -p "$stage$(dirname "$lib")"
	cp -L "$lib" "$stage$lib"
done
# Run by the pty test only (it needs the console as a terminal).
mkdir -p "$stage/t/pty"
musl-gcc -static -O2 -Wall -Werror -o "$stage/t/pty/ttyctl" "$here/pty/ttyctl.c" || exit 1
tools/mkinitramfs "$build/guest.cpio" "$stage" || exit 1

pass=0 fail=0
# cprogs.sh runs every C program twice in one boot: on this loaded 2-core
# machine (load 15) they took more than 60 s together once the thread
# and futex programs came.
limit=180
for t in "$here"/t/*.sh; do
	name=$(basename "$t" .sh)
	inside=$(timeout $limit "$vk" -m 256m --initramfs "$build/guest.cpio" -- \
	    /bin/sh -c "cd /tmp && exec /bin/sh /t/$name.sh /t" 2>/dev/null)
	in_rc=$?
	scratch=$(mktemp -d)
	native=$(cd "$scratch" && timeout $limit busybox sh "$stage/t/$name.sh" "$stage/t" 2>&1)
	na_rc=$?
	rm -rf "$scratch"
	if [ "$inside" = "$native" ] && [ $in_rc = $na_rc ]; then
		pass=$((pass + 1)); echo "ok   guest $name"
	else
		fail=$((fail + 1)); echo "FAIL guest $name (status $in_rc inside, $na_rc native)"
		printf '%s\n' "$inside" > "$build/guest-$name.inside"
		printf '%s\n' "$native" > "$build/guest-$name.native"
		diff "$build/guest-$name.native" "$build/guest-$name.inside" | head -20
	fi
done
for t in "$here"/inside/*.sh; do
	name=$(basename "$t" .sh)
	out=$(timeout 60 "$vk" -m 256m --initramfs "$build/guest.cpio" -- \
	    /bin/sh -c "cd /tmp && exec /bin/sh /t/inside/$name.sh" 2>/dev/null)
	if [ $? = 0 ]; then
		pass=$((pass + 1)); echo "ok   inside $name"
		# Figures a test prints beside its checks (never asserted).
		printf '%s\n' "$out" | grep -v '^ok \|^$' | sed 's/^/     /'
	else
		fail=$((fail + 1)); echo "FAIL inside $name"
		printf '%s\n' "$out" | grep -v '^ok '
	fi
done
# The console through a host pseudo-terminal, typed at as a person would.
cc -O2 -Wall -Wextra -Werror -o "$build/ptytest" "$here/pty/ptytest.c" || exit 1
timeout 300 "$build/ptytest" "$vk" "$build/guest.cpio" > "$build/pty.log"
cat "$build/pty.log"
pass=$((pass + $(grep -c '^ok ' "$build/pty.log")))
fail=$((fail + $(grep -c '^FAIL ' "$build/pty.log")))
grep -q '^[0-9]* passed, 0 failed$' "$build/pty.log" || fail=$((fail + 1))
echo "$pass passed, $fail failed"
[ $fail = 0 ]
