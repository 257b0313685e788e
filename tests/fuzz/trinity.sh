#!/bin/sh
# make fuzz: the system-call fuzzer trinity (Debian's package) as an
# unprivileged user inside vkernel, for a bounded time, from a seed.
#
#   FUZZ_SECONDS  how long trinity runs (default 120)
#   FUZZ_SEED     trinity's seed (default: from the date; printed, so a
#                 run can be repeated: FUZZ_SEED=N make fuzz)
#   FUZZ_COUNT    at most this many system calls (trinity -N; 10000000)
#   FUZZ_CHILDREN trinity's child processes (-C; default 4)
#   FUZZ_CPUS     vkernel's CPUs (-n; default 2)
#   FUZZ_MEM      vkernel's RAM (-m; default 512m)
#   FUZZ_ARGS     more trinity options (e.g. "-c mmap" or "-x ptrace")
#
# Passes when vkernel exits with fuzzinit's status 0 (no panic, no host
# signal), the log has no panic and no sanitizer report, and the
# kernel's free memory after trinity and its files are gone is within
# FUZZ_MEM_SLACK kB (default 1024) of what it was before.  Prints the
# seed, the number of system calls trinity made and both memory figures.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-build}
vk=$build/vkernel
seconds=${FUZZ_SECONDS:-120}
seed=${FUZZ_SEED:-$(date +%s)}
count=${FUZZ_COUNT:-10000000}
children=${FUZZ_CHILDREN:-4}
cpus=${FUZZ_CPUS:-2}
mem=${FUZZ_MEM:-512m}
slack=${FUZZ_MEM_SLACK:-1024}
log=$build/fuzz.log

trinity=$(command -v trinity || echo /usr/bin/trinity)
if [ ! -x "$trinity" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq trinity >/dev/null
	else
		echo "fuzz: needs trinity: apt-get install trinity (as root)" >&2
		exit 1
	fi
	trinity=$(command -v trinity || echo /usr/bin/trinity)
fi

# The image: busybox, trinity and the libraries ldd names, fuzzinit.
stage=$(cd "$build" && pwd)/fuzz-root || exit 1	# BUILD may be absolute
rm -rf "$stage" && mkdir -p "$stage/usr/bin" "$stage/sbin"
cp "$trinity" "$stage/usr/bin/trinity"
for lib in $(ldd "$trinity" | grep -o '/[^ ]*'); do
	mkdir -p "$stage$(dirname "$lib")"
	cp -L "$lib" "$stage$lib"
done
gcc -static -O2 -Wall -Werror -o "$stage/sbin/fuzzinit" "$here/fuzzinit.c" || exit 1
mkdir -p "$stage/etc"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' \
    > "$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$stage/etc/group"
tools/mkinitramfs "$build/fuzz.cpio" "$stage" || exit 1

echo "fuzz: trinity -s $seed -N $count -C $children for $seconds s" \
    "($vk -n $cpus -m $mem)"
timeout -s KILL $((seconds + 120)) "$vk" -v -n "$cpus" -m "$mem" \
    --initramfs "$build/fuzz.cpio" -- /sbin/fuzzinit "$seconds" \
    /usr/bin/trinity -q -l off -s "$seed" -N "$count" -C "$children" \
    ${FUZZ_ARGS:-} > "$log" 2>&1
rc=$?
fail=0
if [ $rc != 0 ]; then
	if [ $rc -gt 128 ]; then
		echo "FAIL fuzz: vkernel killed by host signal $((rc - 128))"
	else
		echo "FAIL fuzz: vkernel exited with status $rc"
	fi
	fail=1
fi
if grep -n -i 'panic' "$log" | grep -v '^[0-9]*:\[' | head -5 | grep .; then
	echo "FAIL fuzz: the kernel log says panic"
	fail=1
fi
if grep -n -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$log" | head -5 | grep .; then
	echo "FAIL fuzz: a sanitizer report"
	fail=1
fi
calls=$(grep -o 'Ran [0-9]* syscalls' "$log" | tail -1 | grep -o '[0-9]*')
echo "fuzz: seed $seed: trinity made ${calls:-an unknown number of} system calls"
grep '^fuzz:' "$log"
set -- $(sed -n 's/^fuzz: MemFree before \([0-9]*\) kB after \([0-9]*\) kB.*/\1 \2/p' "$log")
if [ $# != 2 ]; then
	echo "FAIL fuzz: no memory figures (fuzzinit did not finish)"
	fail=1
elif [ $(($1 - $2)) -gt "$slack" ]; then
	echo "FAIL fuzz: $(($1 - $2)) kB of free memory not back (slack $slack kB)"
	fail=1
else
	echo "fuzz: free memory back within $(($1 - $2)) kB (slack $slack kB)"
fi
[ -z "$calls" ] && { echo "FAIL fuzz: trinity printed no summary"; fail=1; }
echo "fuzz: full log in $log"
[ $fail = 0 ] && echo "ok   fuzz (seed $seed)"
exit $fail
