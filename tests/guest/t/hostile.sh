# Hostile input from the shell: garbage to execute, too many arguments,
# runaway recursion and memory, a file system filled past RAM.  Whatever
# happens to the command, the shell (and the kernel) go on; the C programs
# efault, badexec, faults, forkbomb and bigalloc do the rest (cprogs.sh).
T=$1
ulimit -s 8192 2>/dev/null	# 2 MiB of arguments, and recursion that ends soon
status() { echo "$1: status $2"; }

# (Not tried: a file without #!, which busybox runs as a script by
# executing /proc/self/exe, and vkernel has no /proc yet.)
head -c 64 "$T/bin/faults" > trunc; chmod +x trunc
./trunc 2>/dev/null; status "first 64 bytes of an ELF" $?
printf '#!/nonexistent/sh\n' > nointerp; chmod +x nointerp
./nointerp 2>/dev/null; status "#! missing interpreter" $?
printf '#!./loop\n' > loop; chmod +x loop
./loop 2>/dev/null; status "#! loop" $?
mkdir dir; ./dir 2>/dev/null; status "directory" $?
./missing 2>/dev/null; status "missing" $?
rm -r trunc nointerp loop dir

# Arguments: 100000 fit in Linux's 2 MiB; 250000 do not once their
# pointers are counted too.
/bin/echo $(seq 1 100000) | wc -c
/bin/echo $(seq 1 250000) 2>/dev/null | wc -c

# Runaway recursion in the shell: the stack runs out, the shell dies.
sh -c 'f() { f; }; f' 2>/dev/null; status "recursion" $?

# Runaway memory, bounded natively by ulimit -v (vkernel has 256 MiB):
# awk dies of ENOMEM or is killed; only that it ended is shown.
# (The subshell waits for awk itself, so any "Killed" goes to /dev/null.)
(ulimit -v 100000; awk 'BEGIN { s = "x"; while (1) s = s s }'; true) >/dev/null 2>&1
echo "awk ended"

# Filling tmpfs past RAM (natively, 160 MiB of disk): dd fails or is
# killed, the file goes, and the shell goes on.
dd if=/dev/zero of=big bs=1048576 count=160 2>/dev/null
echo "dd ended"
rm -f big
[ -e big ] || echo "big removed"
echo after > small && cat small && rm small
echo survived
