# Debian's bash (dynamic: ld.so, libtinfo, libc from the image): process
# substitution, <(cmd) and >(cmd), reads and writes a pipe through
# /dev/fd/N, which opening (also with O_CREAT) and stat reopen and follow
# to the pipe.
T=$1
B=$T/dyn/bash
"$B" -c 'cat <(echo hi)'; echo "status $?"
"$B" -c 'busybox diff <(echo a) <(echo b) | tail -n +3'; echo "status $?"
"$B" -c 'busybox cmp <(echo a) <(echo b)'; echo "status $?"
"$B" -c 'while read l; do echo "got $l"; done < <(printf "x\ny\n")'; echo "status $?"
"$B" -c 'busybox paste <(echo 1) <(echo 2) <(echo 3)'; echo "status $?"
"$B" -c 'echo out > >(busybox tr a-z A-Z); wait $!'; echo "status $?"
"$B" -c 'busybox wc -c < <(busybox seq 1000)'; echo "status $?"
"$B" -c 'x=$(echo sub); echo "$x ${BASH_VERSINFO[0]:+versioned}"'; echo "status $?"
