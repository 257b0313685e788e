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
	sed -E 's/\) +=/) =/; s/\], 0x[0-9a-f]+ \/\*/], ADDR \/*/' "$T/trace" |
	    grep -qxF -- "$2" && ok "$1" ||
	    fail "$1" "no line \"$2\" in: $(head -c 600 "$T/trace")"
}
# Without strace's column padding, addresses and pids.
norm() {
	sed -E 's/\) +=/) =/; s/0x[0-9a-f]+/ADDR/g;
	    s/si_pid=[0-9]+/si_pid=N/; s/^kill\([0-9]+,/kill(N,/' "$1"
}

strace_boot --strace -- /bin/sh -c 'ls /'
expect_status "ls / exits 0 under --strace" 0
has "init's execve" 'execve("/bin/sh", ["/bin/sh", "-c", "ls /"], ADDR /* 3 vars */) = 0'
has "a whole line" "close(3) = 0"
grep -qE '^openat\(AT_FDCWD, "/", O_RDONLY\|O_NONBLOCK\|O_CLOEXEC\|O_DIRECTORY\) += 3$' \
    "$T/trace" && ok "openat's flags by name" || fail "openat's flags by name" "$(grep openat "$T/trace")"
grep -qE '^newfstatat\(AT_FDCWD, "/bin", \{st_mode=S_IFDIR\|0755, st_size=[0-9]+, \.\.\.\}, AT_SYMLINK_NOFOLLOW\) += 0$' \
    "$T/trace" && ok "struct stat summarised" || fail "struct stat summarised" "$(grep newfstatat "$T/trace" | head -2)"
has "a terminal's modes" 'ioctl(1, TCGETS, {c_iflag=ICRNL|IXON, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR, c_cflag=B38400|CS8|CREAD|HUPCL, c_lflag=ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN|ECHOCTL|ECHOKE, ...}) = 0'
has "exit_group never returns" "exit_group(0) = ?"
has "the exit line" "+++ exited with 0 +++"
grep -q '^\[pid' "$T/trace" && fail "no [pid N] with one process" "$(grep -m1 '^\[pid' "$T/trace")" ||
    ok "no [pid N] with one process"
[ "$(grep -c . "$T/out")" -ge 1 ] && ok "the guest's output stays on stdout" ||
    fail "the guest's output stays on stdout" "$(cat "$T/out")"

# [pid N] only while more than one process is followed, as strace -f.
strace_boot --strace -- /bin/sh -c 'ls / | cat; exit 4'
has "attached" "strace: Process 2 attached"
has "[pid N] with two" '[pid     2] prctl(PR_SET_NAME, "ls") = 0'
has "[pid N] on the exit line of the last child" "[pid     3] +++ exited with 0 +++"
has "none once alone again" "exit_group(4) = ?"
# The handler of the SIGCHLDs may interrupt a wait4 (= -1 EINTR) or not.
grep -qE '^(\[pid +1\] )?rt_sigreturn\(\{mask=\[\]\}\) += ' "$T/trace" &&
    ok "sigreturn's mask" || fail "sigreturn's mask" "$(grep sigreturn "$T/trace")"

strace_boot --strace -- /t/bin/tracee
expect_status "tracee's status" 3
has "input buffer, escaped" 'write(3, "hello\tworld\n\1\0023", 15) = 15'
has "output buffer after the call" 'read(3, "hello\tworld\n\1\0023", 64) = 15'
has "truncated at 32" 'write(1, "01234567890123456789012345678901"..., 41) = 41'
has "an error" 'openat(AT_FDCWD, "/nonexistent/file", O_RDONLY|O_LARGEFILE|O_CLOEXEC) = -1 ENOENT (No such file or directory)'
has "the mode when creating" 'openat(AT_FDCWD, "/tmp/tracee.txt", O_RDWR|O_CREAT|O_TRUNC|O_LARGEFILE, 0600) = 3'
has "fstat" 'fstat(3, {st_mode=S_IFREG|0600, st_size=15, ...}) = 0'
has "F_GETFL's flags" 'fcntl(3, F_GETFL) = 0x8002 (flags O_RDWR|O_LARGEFILE)'
has "F_GETFD's flags" 'fcntl(3, F_GETFD) = 0x1 (flags FD_CLOEXEC)'
has "TCSETSW's termios" 'ioctl(0, SNDCTL_TMR_STOP or TCSETSW, {c_iflag=, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|ONLCR, c_cflag=B38400|CS8|CREAD, c_lflag=ECHOE|ECHOK|ECHOCTL|ECHOKE, ...}) = 0'
has "a signal" '--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=1, si_uid=0} ---'
has "the handler's return" 'rt_sigreturn({mask=[]}) = 0'
has "exit status" "+++ exited with 3 +++"

# Sockets: busybox logger's socket and its sockaddr_un (no syslogd).
strace_boot --strace=trace=%net -- /bin/sh -c 'logger hi; true'
has "socket's family and type" '[pid     2] socket(AF_UNIX, SOCK_DGRAM|SOCK_CLOEXEC, 0) = 3'
has "a sockaddr_un" '[pid     2] connect(3, {sa_family=AF_UNIX, sun_path="/dev/log"}, 110) = -1 ENOENT (No such file or directory)'

# A child's exit: SIGCHLD with its siginfo, as strace shows it.
strace_boot --strace=trace=none -- /bin/sh -c '/bin/true; exit 0'
grep -qE '^--- SIGCHLD \{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=[0-9]+, si_uid=0, si_status=0, si_utime=[0-9]+, si_stime=[0-9]+\} ---$' \
    "$T/trace" && ok "SIGCHLD's siginfo" || fail "SIGCHLD's siginfo" "$(grep -- --- "$T/trace")"

strace_boot --strace=trace=openat,close -- /t/bin/tracee
if grep -v -e '^openat(' -e '^close(' -e '^---' \
    -e '^+++' -e '^vkernel:' "$T/trace" | grep -q .; then
	fail "trace=openat,close" "other lines: $(head -c 300 "$T/trace")"
else
	[ "$(grep -c 'openat(' "$T/trace")" = 2 ] && ok "trace=openat,close" ||
	    fail "trace=openat,close" "$(cat "$T/trace")"
fi
strace_boot "--strace=file=$T/file,trace=!%desc" -- /t/bin/tracee
grep -q '^unlink("/tmp/tracee.txt")' "$T/file" &&
    grep -q '^execve("/t/bin/tracee"' "$T/file" &&
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
filter=openat,write,lseek,read,fstat,fcntl,close,unlink,kill,rt_sigreturn,exit_group
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

# A terminal's modes as the host's strace shows them on a pseudo-terminal
# (script(1)): the same lines once the first TCGETS, the terminal's own
# modes, is left out.
if command -v strace >/dev/null && command -v script >/dev/null; then
	script -qec "strace -o $T/thost -e trace=ioctl $prog" /dev/null > /dev/null 2>&1
	strace_boot --strace=trace=ioctl -- /t/bin/tracee
	norm "$T/thost" | sed '1,/TCGETS/d' > "$T/thost.n"
	grep -v '^vkernel:' "$T/trace" > "$T/tours"
	norm "$T/tours" | sed '1,/TCGETS/d' > "$T/tours.n"
	if [ -s "$T/thost.n" ] && cmp -s "$T/thost.n" "$T/tours.n"; then
		ok "termios as the host's strace"
	else
		fail "termios as the host's strace" "$(diff "$T/thost.n" "$T/tours.n" | head -10)"
	fi
else
	echo "ok strace: (skipped: no strace or script on the host)"
fi

# busybox sh -c 'ls /' on the same tree: the host's strace -f of it,
# chrooted into the image's files on a pseudo-terminal of 24 x 80 (the
# console's size; hupcl as a console has it), with init's environment,
# against --strace, line for line, both kept in $BUILD/strace-ls.*.
# What differs for reasons outside the kernel is normalised:
# addresses, pids, random bytes, the node name, directory sizes and the
# order readdir gives; the calls that are the host's alone are left out:
# readlink of /proc/self/exe (no /proc in the chroot), time (the host's
# vDSO), and rseq (not implemented here: ENOSYS, which the C libraries
# accept); and glibc asks isatty of a console's stdout but not of a
# pseudo-terminal's (DEV_TTY_P), a TCGETS only we show.
normsh() {
	sed -E 's/\) +=/) =/
	    s/st_mode=S_IFCHR\|0[0-7]+, st_rdev=makedev\((0x[0-9a-f]+|0), (0x[0-9a-f]+|0)\)/st_mode=S_IFCHR|MODE, st_rdev=DEV/
	    s/0x[0-9a-f]+/ADDR/g
	    s/getrandom\("[^"]*"/getrandom("BYTES"/
	    s/^(set_tid_address\(ADDR\)|getpid\(\)|getppid\(\)) = [0-9]+$/\1 = PID/
	    s/nodename="[^"]*"/nodename="NODE"/
	    s/(S_IFDIR[|0-7A-Z_]*, st_size=)[0-9]+/\1N/g
	    /^(rseq|readlink|time)\(/d
	    /^newfstatat\(1, ""/{n; /^ioctl\(1, TCGETS/d}' "$1" |
	awk '{ if ($0 ~ /^newfstatat\(AT_FDCWD, "\/[^"]*", .*AT_SYMLINK_NOFOLLOW\)/) {
		if (!inrun) key = NR; inrun = 1 } else { inrun = 0; key = NR }
		printf "%d\t%s\n", key, $0 }' | LC_ALL=C sort -t '	' -k1,1n -k2 | cut -f2-
}
if command -v strace >/dev/null && command -v script >/dev/null &&
    [ "$(id -u)" = 0 ] && mkdir "$T/tree" && cpio -id --quiet -D "$T/tree" < "$ROOT"; then
	chmod 700 "$T/tree"		# the modes the image's root and
	chmod 555 "$T/tree/proc"	# its /proc have inside
	env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin script -qec "stty rows 24 cols 80 hupcl
	    env -i HOME=/ PATH=/sbin:/bin:/usr/sbin:/usr/bin TERM=linux \
	    strace -f chroot $T/tree /bin/sh -c 'ls /' 2> $T/lshost" /dev/null > /dev/null 2>&1
	sed -n '/^execve("\/bin\/sh"/,$p' "$T/lshost" > "$BUILD/strace-ls.host"
	timeout 60 "$VK" -m 64m --initramfs "$ROOT" --strace -- /bin/sh -c 'ls /' \
	    2> "$T/lsours" > /dev/null < /dev/null
	grep -v '^vkernel:' "$T/lsours" > "$BUILD/strace-ls.ours"
	normsh "$BUILD/strace-ls.host" > "$T/lshost.n"
	normsh "$BUILD/strace-ls.ours" > "$T/lsours.n"
	if [ "$(wc -l < "$T/lshost.n")" -ge 40 ] && cmp -s "$T/lshost.n" "$T/lsours.n"; then
		ok "ls / as the host's strace -f, $(wc -l < "$T/lshost.n") lines"
	else
		fail "ls / as the host's strace -f" "$(diff "$T/lshost.n" "$T/lsours.n" | head -10)"
	fi
else
	echo "ok strace: (skipped: ls / needs strace, script, root for chroot)"
fi
