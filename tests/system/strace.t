# vkernel --strace: strace's format, errors, signals, exits and the
# trace= filter, and the same lines as the host's strace for a
# deterministic static program.
. "$(dirname "$0")/lib.sh"

# strace [--strace options] -- init args: the trace in $T/trace.
strace_boot() {
	timeout 60 "$VK" -m 64m --initramfs "$SYSROOT" "$@" \
	    > "$T/out" 2> "$T/trace" < /dev/null
	status=$?
}
# has NAME LINE: the trace holds this exact line (the padding before
# " = " collapsed).
has() {
	sed -E 's/\) +=/) =/' "$T/trace" | grep -qxF -- "$2" && ok "$1" ||
	    fail "$1" "no line \"$2\" in: $(head -c 600 "$T/trace")"
}
# Without the [pid N] prefix, strace's column padding and addresses.
norm() {
	sed -E 's/^\[pid +[0-9]+\] //; s/\) +=/) =/; s/0x[0-9a-f]+/ADDR/g;
	    s/si_pid=[0-9]+/si_pid=N/; s/^kill\([0-9]+,/kill(N,/' "$1"
}

strace_boot --strace -- /bin/sh -c 'ls /'
expect_status "ls / exits 0 under --strace" 0
has "a whole line" "[pid 1] close(3) = 0"
grep -qE '^\[pid 1\] openat\(AT_FDCWD, "/", O_RDONLY\|O_NONBLOCK\|O_CLOEXEC\|O_DIRECTORY\) += 3$' \
    "$T/trace" && ok "openat's flags by name" || fail "openat's flags by name" "$(grep openat "$T/trace")"
grep -qE '^\[pid 1\] newfstatat\(AT_FDCWD, "/bin", \{st_mode=S_IFDIR\|0755, st_size=[0-9]+, \.\.\.\}, AT_SYMLINK_NOFOLLOW\) += 0$' \
    "$T/trace" && ok "struct stat summarised" || fail "struct stat summarised" "$(grep newfstatat "$T/trace" | head -2)"
has "exit_group never returns" "[pid 1] exit_group(0) = ?"
has "the exit line" "[pid 1] +++ exited with 0 +++"
[ "$(grep -c . "$T/out")" -ge 1 ] && ok "the guest's output stays on stdout" ||
    fail "the guest's output stays on stdout" "$(cat "$T/out")"

strace_boot --strace -- /t/bin/tracee
expect_status "tracee's status" 3
has "input buffer, escaped" '[pid 1] write(3, "hello\tworld\n\1\0023", 15) = 15'
has "output buffer after the call" '[pid 1] read(3, "hello\tworld\n\1\0023", 64) = 15'
has "truncated at 32" '[pid 1] write(1, "01234567890123456789012345678901"..., 41) = 41'
has "an error" '[pid 1] openat(AT_FDCWD, "/nonexistent/file", O_RDONLY|O_LARGEFILE|O_CLOEXEC) = -1 ENOENT (No such file or directory)'
has "the mode when creating" '[pid 1] openat(AT_FDCWD, "/tmp/tracee.txt", O_RDWR|O_CREAT|O_TRUNC|O_LARGEFILE, 0600) = 3'
has "fstat" '[pid 1] fstat(3, {st_mode=S_IFREG|0600, st_size=15, ...}) = 0'
has "a signal" '[pid 1] --- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=1, si_uid=0} ---'
has "exit status" "[pid 1] +++ exited with 3 +++"

# A child's exit: SIGCHLD with its siginfo, as strace shows it.
strace_boot --strace=trace=none -- /bin/sh -c '/bin/true; exit 0'
grep -qE '^\[pid 1\] --- SIGCHLD \{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=[0-9]+, si_uid=0, si_status=0, si_utime=[0-9]+, si_stime=[0-9]+\} ---$' \
    "$T/trace" && ok "SIGCHLD's siginfo" || fail "SIGCHLD's siginfo" "$(grep -- --- "$T/trace")"

strace_boot --strace=trace=openat,close -- /t/bin/tracee
if grep -v -e '^\[pid 1\] openat(' -e '^\[pid 1\] close(' -e '^\[pid 1\] ---' \
    -e '^\[pid 1\] +++' -e '^vkernel:' "$T/trace" | grep -q .; then
	fail "trace=openat,close" "other lines: $(head -c 300 "$T/trace")"
else
	[ "$(grep -c 'openat(' "$T/trace")" = 2 ] && ok "trace=openat,close" ||
	    fail "trace=openat,close" "$(cat "$T/trace")"
fi
strace_boot "--strace=file=$T/file,trace=!%desc" -- /t/bin/tracee
grep -q '^\[pid 1\] unlink("/tmp/tracee.txt")' "$T/file" &&
    ! grep -q 'read(' "$T/file" && ok "file=F,trace=!%desc" ||
    fail "file=F,trace=!%desc" "$(head -c 300 "$T/file")"
"$VK" --strace=trace=nosuchcall -- /bin/true 2>/dev/null
[ $? = 64 ] && ok "an unknown call is a usage error" ||
    fail "an unknown call is a usage error" "status $?"

# The host's strace, where there is one, prints the same lines.
if ! command -v strace >/dev/null && [ "$(id -u)" = 0 ]; then
	apt-get install -y -q strace >/dev/null 2>&1
fi
prog=$BUILD/system-root/t/bin/tracee
filter=openat,write,lseek,read,fstat,close,unlink,kill,exit_group
if command -v strace >/dev/null && strace -o "$T/host" -e trace=$filter "$prog" >/dev/null 2>&1; [ -s "$T/host" ]; then
	strace_boot --strace=trace=$filter -- /t/bin/tracee
	grep -v '^vkernel:' "$T/trace" > "$T/ours"
	norm "$T/host" > "$T/host.n"
	norm "$T/ours" > "$T/ours.n"
	if cmp -s "$T/host.n" "$T/ours.n"; then
		ok "the same lines as the host's strace"
	else
		fail "the same lines as the host's strace" "$(diff "$T/host.n" "$T/ours.n" | head -20)"
	fi
else
	echo "ok strace: (skipped: no strace on the host)"
fi
