#!/bin/bash
# Real work on the Debian root, run twice by tests/debian/run.sh: in a
# chroot of the root on the host, and inside vkernel booted on the same
# root.  Each section prints "== NAME", its output, then "-- status N";
# the two runs must print the same.  Nothing printed may depend on the
# machine: times, pids, inode numbers and file-system block counts are
# left out or normalised.  An argument list runs only those sections.
# Each section runs in its own bash, in its own scratch directory, under
# a time limit, so one that hangs or crashes does not stop the others.
set -u
export LC_ALL=C.UTF-8 TZ=UTC HOME=/root
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

sec_bash() {
	local -a a=(one "two words" three)
	a+=(four)
	echo "${#a[@]} ${a[1]} ${a[-1]} ${a[*]:1:2}"
	declare -A h=([x]=1 [y]=2)
	h[z]=3
	for k in $(printf '%s\n' "${!h[@]}" | sort); do echo "$k=${h[$k]}"; done
	mapfile -t lines < <(printf 'l1\nl2\nl3\n')
	echo "mapfile ${#lines[@]} ${lines[2]}"
	diff <(seq 5) <(seq 5 | sed 3d)
	echo "diff $?"
	echo hello > >(tr a-z A-Z)
	wait $!
	coproc BC { while read -r n; do echo $((n * n)); done; }
	for n in 3 4 12; do echo "$n" >&"${BC[1]}"; read -r sq <&"${BC[0]}"; echo "sq $sq"; done
	exec {BC[1]}>&-
	wait "$BC_PID"
	echo "coproc $?"
	printf -v s '%05d|%-4s|%x' 42 ab 255
	echo "$s"
	shopt -s extglob
	f=file.tar.gz
	echo "${f%%.*} ${f#*.} ${f/tar/TAR} ${f^^} ${f//?(.)gz/}"
	x=$(( (7 ** 3) % 100 + 0x10 ))
	echo "arith $x"
	[[ abc123 =~ ^([a-z]+)([0-9]+)$ ]] && echo "re ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
	f() { local v=$1; (( v <= 1 )) && { echo 1; return; }; echo $(( v * $(f $((v - 1))) )); }
	echo "fact $(f 10)"
	trap 'echo trapped USR1' USR1
	kill -USR1 $$
	( exit 7 ); echo "subshell $?"
	false | true; echo "pipe ${PIPESTATUS[*]}"
	set -o pipefail; false | true; echo "pipefail $?"; set +o pipefail
	read -r -a w <<< "alpha beta gamma"
	echo "here ${w[1]}"
	cat <<-EOF
	heredoc ${#w[@]}
	EOF
	sleep 0.2 & sleep 0.1 & wait
	echo "jobs done"
}

sec_coreutils() {
	seq 1 2000 | shuf --random-source=<(yes) | sort -n | sha256sum
	printf 'b 2\na 10\nc 1\na 2\n' | sort -k1,1 -k2,2n
	printf 'x\ny\nx\nz\n' | sort -u | tr '\n' ' '; echo
	seq 100000 | sha256sum
	seq 1000 > nums
	split -l 300 -d nums part.
	wc -l part.* | sort
	cat part.* | cmp - nums && echo "split joins"
	mkdir -p tree/a/b tree/c
	touch -d '2020-01-02 03:04:05' tree/a/f1 tree/a/b/f2 tree/c/f3
	echo data > tree/a/b/f2
	chmod 640 tree/c/f3
	find tree -type f | sort
	find tree -name 'f*' -newer tree/a/f1 | sort
	find tree -type d -printf '%p %m\n' | sort
	stat -c '%n %s %a %A %F %U %G %h' tree/a/b/f2 tree/c/f3 nums
	stat -c '%y' tree/a/f1
	ls -l tree/a/b/f2 tree/c | awk '{ print $1, $3, $4, $5 }'
	dd if=/dev/zero bs=4096 count=100 status=none | sha256sum
	dd if=nums of=dd.out bs=1000 skip=1 count=2 conv=notrunc 2>&1 | grep -v copied
	od -A d -t x1 -N 16 dd.out
	printf '\001\002\377' | od -c
	head -c 64 /dev/urandom | wc -c
	date -u -d '2024-02-29 12:34:56' '+%s %A %j %U'
	date -u -d @1700000000 '+%F %T %Z'
	date -u -d '2020-01-01 + 45 days' +%F
	date -u -d 'next monday' +%A
	timeout 0.5 sleep 5; echo "timeout $?"
	(timeout -s KILL 0.3 sleep 5; echo "timeout kill $?") 2>/dev/null
	timeout 5 true; echo "timeout ok $?"
	echo "hello world" | base64 | base64 -d
	printf '3\n1\n2\n' | tac | paste -sd+ | bc 2>/dev/null || printf '3\n1\n2\n' | tac | paste -sd,
	factor 1234567890
	numfmt --to=iec 1048576 123456789
	seq 10 | tail -3 | head -2
	echo "a:b:c" | cut -d: -f2,3
	printf 'k1 v1\nk2 v2\n' > j1; printf 'k1 w1\nk2 w2\n' > j2; join j1 j2
	expr 6 \* 7
	ls -1 tree/a
	ln -s nums link; readlink link; realpath -m tree/../nums | sed 's|.*/||'
	du -a --apparent-size -b tree/a/b | sort
	md5sum nums; sha1sum nums; b2sum nums | cut -c1-32
	truncate -s 5000 nums; wc -c < nums
	mktemp -d -p . | grep -c tmp
	cp -a tree tree2 && diff -r tree tree2 && echo "cp -a same"
	mv tree2 tree3 && rm -r tree3 && echo "rm -r ok"
	id -u; id -gn; uname -s; nproc | grep -c .
	yes | head -3
	env -i FOO=1 /usr/bin/env
	(renice -n 7 -p $BASHPID >/dev/null && nice)
}

sec_tar() {
	mkdir -p src/d1/d2
	seq 50000 > src/d1/numbers
	for i in $(seq 20); do printf 'file %d\n' "$i" > "src/d1/d2/f$i"; done
	head -c 300000 /dev/zero > src/zeros
	ln -s d1/numbers src/link
	tar -czf src.tgz src
	tar -cJf src.txz src
	tar -tzf src.tgz | sort | head -5
	tar -tJf src.txz | wc -l
	mkdir gz xz
	tar -xzf src.tgz -C gz
	tar -xJf src.txz -C xz
	diff -r src gz/src && diff -r src xz/src && echo "round trips equal"
	readlink xz/src/link
	gzip -9 -c src/d1/numbers | gzip -d | sha256sum
	xz -T1 -c src/zeros | xz -d | wc -c
	xz -c src/d1/numbers > n.xz && xz -t n.xz && echo "xz -t ok"
	gzip -c src/d1/numbers > n.gz && gzip -t n.gz && zcat n.gz | tail -1
	tar -cf - src | tar -tvf - | awk '{print $1, $3, $6}' | sort | head -4
}

sec_py_basic() {
	python3 - <<'EOF'
import json, hashlib, zlib, struct, re, collections, itertools, os, sys
d = {"b": [1, 2.5, None, True], "a": {"é": "ünï", "n": 10**20}}
s = json.dumps(d, sort_keys=True, ensure_ascii=False)
print(s)
print(json.loads(s) == d)
for name in ("md5", "sha1", "sha256", "sha512", "blake2b", "sha3_256"):
    print(name, hashlib.new(name, b"vkernel" * 100000).hexdigest()[:32])
print(hashlib.pbkdf2_hmac("sha256", b"pw", b"salt", 1000).hex())
data = bytes(range(256)) * 1000
print(len(zlib.compress(data, 9)), zlib.crc32(data))
print(struct.pack("<IhQ", 1, -2, 3).hex())
print(re.findall(r"(\w)(\d+)", "a1 b22 c333"))
print(collections.Counter("mississippi").most_common(2))
print(list(itertools.permutations("abc", 2))[:4])
print(sum(i * i for i in range(10**6)))
with open("f.txt", "w") as f:
    f.write("line\n" * 1000)
print(os.path.getsize("f.txt"), sorted(os.listdir(".")))
print(sys.version_info[:2] >= (3, 11))
EOF
}

sec_py_threads() {
	python3 - <<'EOF'
import threading, queue, concurrent.futures, time
total = 0
lock = threading.Lock()
def add(n):
    global total
    for _ in range(n):
        with lock:
            total += 1
ts = [threading.Thread(target=add, args=(20000,)) for _ in range(8)]
for t in ts: t.start()
for t in ts: t.join()
print("total", total)
q = queue.Queue()
def producer():
    for i in range(100): q.put(i)
    q.put(None)
got = []
def consumer():
    while (v := q.get()) is not None: got.append(v)
a, b = threading.Thread(target=producer), threading.Thread(target=consumer)
b.start(); a.start(); a.join(); b.join()
print("queue", sum(got), len(got))
ev = threading.Event()
threading.Timer(0.1, ev.set).start()
print("event", ev.wait(5))
cv = threading.Condition()
state = []
def waiter():
    with cv:
        cv.wait_for(lambda: state)
        state.append("woken")
w = threading.Thread(target=waiter); w.start()
time.sleep(0.05)
with cv:
    state.append("set"); cv.notify_all()
w.join()
print("condition", state)
with concurrent.futures.ThreadPoolExecutor(4) as ex:
    print("pool", list(ex.map(lambda x: x ** 3, range(10))))
local = threading.local()
def tl(i, out):
    local.v = i; time.sleep(0.01); out.append(local.v == i)
out = []
ts = [threading.Thread(target=tl, args=(i, out)) for i in range(6)]
for t in ts: t.start()
for t in ts: t.join()
print("local", all(out), len(out))
print("active", threading.active_count())
EOF
}

sec_py_subprocess() {
	python3 - <<'EOF'
import subprocess, os, sys
r = subprocess.run(["sh", "-c", "echo out; echo err >&2; exit 3"], capture_output=True, text=True)
print(r.returncode, repr(r.stdout), repr(r.stderr))
print(subprocess.check_output(["sort", "-r"], input=b"a\nc\nb\n").decode().split())
p = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
out, _ = p.communicate(b"x" * 200000)
print(len(out), p.returncode)
p = subprocess.Popen(["sleep", "10"])
p.terminate()
print("terminated", p.wait())
try:
    subprocess.run(["sleep", "10"], timeout=0.3)
except subprocess.TimeoutExpired:
    print("timeout expired")
print(subprocess.run("echo $((6*7)) | tr 4 X", shell=True, capture_output=True).stdout)
pid = os.fork()
if pid == 0:
    os._exit(9)
print("fork", os.WEXITSTATUS(os.waitpid(pid, 0)[1]))
r, w = os.pipe()
if os.fork() == 0:
    os.close(r); os.write(w, b"from child"); os._exit(0)
os.close(w); print(os.read(r, 100)); os.wait()
print(subprocess.run([sys.executable, "-c", "import sys; print(sys.argv[1:])", "a", "b"],
                     capture_output=True, text=True).stdout.strip())
EOF
}

sec_py_sqlite() {
	python3 - <<'EOF'
import sqlite3
for path in (":memory:", "t.db"):
    c = sqlite3.connect(path)
    c.execute("create table t (id integer primary key, name text, v real)")
    c.executemany("insert into t (name, v) values (?, ?)",
                  [("n%d" % i, i * 1.5) for i in range(5000)])
    c.commit()
    print(path, c.execute("select count(*), sum(v), max(name) from t").fetchone())
    c.execute("create index tv on t (v)")
    print(c.execute("select name from t where v between 30 and 33 order by v").fetchall())
    c.execute("update t set v = v * 2 where id % 2 = 0")
    c.commit()
    print(c.execute("select round(avg(v), 3) from t").fetchone())
    c.close()
c = sqlite3.connect("t.db")
print("reopened", c.execute("select count(*) from t").fetchone())
print(c.execute("pragma integrity_check").fetchone())
EOF
}

sec_py_mmap() {
	python3 - <<'EOF'
import mmap, os
m = mmap.mmap(-1, 1 << 20)
m[0:5] = b"hello"; m[-3:] = b"end"
print(m[0:5], m[-3:], len(m))
m.close()
with open("data.bin", "wb") as f:
    f.write(b"abcdefgh" * 8192)
with open("data.bin", "rb") as f:
    r = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    print(len(r), r[8:16], r.find(b"hab"), r.rfind(b"ab"))
    r.close()
with open("data.bin", "r+b") as f:
    c = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    c[0:4] = b"COPY"; c.close()
    print("copy leaves file", f.read(4))
EOF
}

# A shared file mapping written through the mapping, read back with read().
sec_py_mmap_shared() {
	python3 - <<'EOF'
import mmap, os
with open("data.bin", "wb") as f:
    f.write(b"abcdefgh" * 8192)
with open("data.bin", "r+b") as f:
    w = mmap.mmap(f.fileno(), 0)
    w[0:4] = b"WXYZ"; w.flush()
    f.seek(0); print(f.read(8))
    os.pwrite(f.fileno(), b"PQ", 4)
    print(w[0:8])
    w.close()
with open("data.bin", "r+b") as f:
    w = mmap.mmap(f.fileno(), 0)
    if os.fork() == 0:
        w[100:103] = b"kid"; os._exit(0)
    os.wait()
    print(w[100:103])
EOF
}

sec_py_signal() {
	python3 - <<'EOF'
import signal, os, time, subprocess
got = []
signal.signal(signal.SIGUSR1, lambda s, f: got.append(s))
os.kill(os.getpid(), signal.SIGUSR1)
print("usr1", got == [signal.SIGUSR1])
def alrm(s, f):
    got.append("alrm")
    if got.count("alrm") == 4:
        signal.setitimer(signal.ITIMER_REAL, 0)
signal.signal(signal.SIGALRM, alrm)
signal.alarm(1)
signal.pause()
print("alarm", got[-1])
signal.setitimer(signal.ITIMER_REAL, 0.05, 0.05)
while got.count("alrm") < 4:
    time.sleep(1)
time.sleep(0.2)
print("itimer", got.count("alrm"))
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2})
os.kill(os.getpid(), signal.SIGUSR2)
print("pending", signal.SIGUSR2 in signal.sigpending())
print("sigwait", signal.sigwait({signal.SIGUSR2}) == signal.SIGUSR2)
p = subprocess.Popen(["sleep", "30"])
os.kill(p.pid, signal.SIGKILL)
print("killed", p.wait())
class Stop(Exception): pass
def h(s, f): raise Stop()
signal.signal(signal.SIGTERM, h)
try:
    os.kill(os.getpid(), signal.SIGTERM); time.sleep(5)
except Stop:
    print("raised in handler")
print(signal.Signals(15).name, signal.strsignal(signal.SIGSEGV))
EOF
}

sec_py_pool() {
	python3 - <<'EOF'
import multiprocessing as mp
def sq(x):
    return x * x
if __name__ == "__main__":
    with mp.Pool(4) as p:
        print(p.map(sq, range(20)))
        print(sum(p.imap_unordered(sq, range(1000))))
    q = mp.Queue()
    ps = [mp.Process(target=q.put, args=(i,)) for i in range(4)]
    for x in ps: x.start()
    print(sorted(q.get() for _ in ps))
    for x in ps: x.join()
    v = mp.Value("i", 0)
    def inc(v):
        for _ in range(1000):
            with v.get_lock(): v.value += 1
    ps = [mp.Process(target=inc, args=(v,)) for _ in range(3)]
    for x in ps: x.start()
    for x in ps: x.join()
    print("value", v.value)
EOF
}

sec_perl() {
	perl -e '
use strict; use warnings;
use List::Util qw(sum max first); use POSIX qw(floor ceil strftime);
use Digest::MD5 qw(md5_hex); use Data::Dumper; $Data::Dumper::Sortkeys = 1;
my %h = map { $_ => length $_ } qw(apple kiwi banana fig);
print join(",", map { "$_=$h{$_}" } sort { $h{$a} <=> $h{$b} or $a cmp $b } keys %h), "\n";
print sum(1..100), " ", max(3, 9, 2), " ", first { $_ > 3 } (1, 5, 2, 8); print "\n";
my $s = "The year 1999 and 2024";
my @y = $s =~ /(\d{4})/g; print "@y\n";
(my $t = $s) =~ s/(\d+)/<$1>/g; print "$t\n";
printf "%.3f %05d %x %e\n", 3.14159, 42, 255, 12345.678;
print unpack("H*", pack("NnC", 1, 2, 3)), "\n";
print md5_hex("vkernel"), "\n";
print floor(-2.5), " ", ceil(2.1), " ", strftime("%Y-%m-%d", gmtime(86400 * 365)), "\n";
local $Data::Dumper::Indent = 0; print Dumper({ a => [1, 2], b => { c => 3 } }), "\n";
my $pid = fork(); if ($pid == 0) { exit 5 } waitpid($pid, 0); print "child ", $? >> 8, "\n";
open(my $fh, "-|", "echo", "piped") or die; print "got ", <$fh>; close $fh;
open(my $out, ">", "p.txt") or die; print $out "$_\n" for 1..1000; close $out;
open(my $in, "<", "p.txt") or die; my @l = <$in>; close $in; print scalar(@l), " lines\n";
my @sorted = sort { $b <=> $a } map { ($_ * 7919) % 1000 } 1..20; print "@sorted[0..4]\n";
eval { die "oops\n" }; print "caught $@";
local $SIG{ALRM} = sub { print "alarm\n" }; alarm 1; sleep 3;
print "ok\n";
'
}

sec_gcc() {
	cat > worker.c <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include "worker.h"
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long total;
static int done;
static void *work(void *arg)
{
	long n = (long)arg;
	for (long i = 0; i < 100000; i++) {
		pthread_mutex_lock(&lock);
		total += n;
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	done++;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
	return (void *)(n * 2);
}
long run(int nthreads)
{
	pthread_t t[16];
	long sum = 0;
	for (long i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, work, (void *)(i + 1));
	pthread_mutex_lock(&lock);
	while (done < nthreads)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < nthreads; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (long)r;
	}
	printf("joined %d threads, returns %ld\n", nthreads, sum);
	return total;
}
EOF
	echo 'long run(int nthreads);' > worker.h
	cat > main.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include "worker.h"
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	printf("total %ld\n", run(n));
	return 0;
}
EOF
	printf 'CFLAGS = -O2 -Wall -Werror -pthread\nprog: main.o worker.o\n\t$(CC) $(CFLAGS) -o $@ $^\n%%.o: %%.c worker.h\n\t$(CC) $(CFLAGS) -c $<\nclean:\n\trm -f prog *.o\n' > Makefile
	make -s -j2 prog && echo "built"
	./prog 8
	make -q prog; echo "make -q $?"
	touch -d '2000-01-01' main.o; touch worker.h
	make -s prog && ./prog 3
	echo 'int main(void) { return 42; }' | gcc -x c -o ret - && ./ret; echo "ret $?"
	echo 'int main(void) { undefined(); }' | gcc -x c -o bad - 2>/dev/null; echo "bad $?"
	gcc -O2 -S -o - -x c - <<< 'int f(int x) { return x * 3; }' | grep -c 'ret'
}

sec_dpkg() {
	dpkg -l | tail -n +6 | awk '{print $1, $2, $3}' | sha256sum
	dpkg -l bash coreutils python3 perl gcc make | tail -n +6 | awk '{print $1, $2}'
	dpkg -s bash | grep -E '^(Package|Status|Priority):'
	dpkg -L coreutils | grep -c /usr/bin/
	dpkg -S /usr/bin/sha256sum
	dpkg --verify coreutils bash sed; echo "verify $?"
	dpkg-query -W -f '${Package} ${Essential}\n' dash grep | sort
	dpkg --print-architecture
	apt-cache policy bash 2>/dev/null | head -1
}

# stress-ng --verify, briefly: each stressor on its own; its log has pids
# and times, so the status and the stressor's name tell the result.
stressor() {
	stress-ng --"$1" 1 "${@:2}" --verify --timeout 3s --temp-path . \
	    --log-file sng.log >/dev/null 2>&1
	local st=$?
	echo "stress-ng $1: $st $(grep -o 'successful run completed' sng.log)"
	# Without /sys (neither the chroot nor vkernel has it) it cannot
	# count the CPUs, and says so; that is not a failure.  A stressor
	# whose system calls fail may skip itself and still succeed.
	grep -E 'fail|error|skipp' sng.log | grep -v 'no CPUs found' |
	    sed 's/^stress-ng: *[a-z]*: *\[[0-9]*\] *//' | head -5
}
sec_stress_vm() { stressor vm --vm-bytes 32m; }
sec_stress_mmap() { stressor mmap --mmap-bytes 16m; }
sec_stress_mmap_file() { stressor mmap --mmap-bytes 16m --mmap-file; }
sec_stress_hdd() { stressor hdd --hdd-bytes 8m; }
sec_stress_dir() { stressor dir --dir-dirs 256; }
sec_stress_msg() { stressor msg; }

sec_procps() {
	ps -o comm= -p $$
	ps -e -o comm= | grep -c '^ps$'
	# (how many bash there are depends on what the runner has going)
	pgrep -x bash | grep -qx "$$" && echo "pgrep finds this bash"
	free -m | head -1 | awk '{print $1, $2}'
	uptime | grep -c load
	kill -0 $$ && echo "kill -0"
	pidof -x sleep || echo "no sleep"
	sleep 30 & s=$!
	# (pkill finds it once the child has become sleep: exec is slow inside)
	until [ "$(cat /proc/$s/comm 2>/dev/null)" = sleep ]; do :; done
	pkill -TERM -x sleep; wait $s; echo "pkill $?"
}

# util-linux dmesg: /dev/kmsg by default, syslog(2) with -S (natively the
# chroot has no /dev/kmsg and it falls back to syslog(2)).  The host's
# log and the machine's differ, so only the shape of the lines is
# printed; nothing is cleared nor the console level changed (natively
# that would be the host's).
sec_dmesg() {
	shape() {
		sed -E 's/^\[ *[0-9]+\.[0-9]{6}\] .*/[time] text/
		    s/^<[0-9]+>\[ *[0-9]+\.[0-9]{6}\] .*/<prio>[time] text/
		    s/^[a-z]+ *:[a-z]+ *: \[ *[0-9]+\.[0-9]{6}\] .*/fac :level : [time] text/' |
		    sort | uniq -c | sed -E 's/^ *1 /line: /; s/^ *[0-9]+ /lines: /'
	}
	dmesg | head -20 | shape
	dmesg -S | head -20 | shape
	dmesg -r | head -20 | shape
	dmesg -x | head -20 | shape
	dmesg --level=emerg,alert,crit,err,warn,notice,info,debug | head -20 | shape
	dmesg -S --raw | head -1 | shape
	dmesg -n 9; echo "dmesg -n 9: $?"
	dmesg --level=nosuch; echo "bad level: $?"
	su nobody -s /bin/sh -c 'dmesg -S' 2>&1 | sed 's/^dmesg: //'
}

# Sourced by each section's bash for the functions alone.
[ "${1:-}" = --functions ] && return 0
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
all="bash coreutils tar py_basic py_threads py_subprocess py_sqlite py_mmap
py_mmap_shared py_signal py_pool perl gcc dpkg stress_vm stress_mmap
stress_mmap_file stress_hdd stress_dir stress_msg procps dmesg"
scratch=${SCRATCH:-/tmp/work}
for s in ${*:-$all}; do
	echo "== $s"
	rm -rf "$scratch/$s" && mkdir -p "$scratch/$s"
	(cd "$scratch/$s" && timeout -k 5 ${SECTION_LIMIT:-120} bash -c \
	    "source '$here/work.sh' --functions; sec_$s" 2>&1)
	echo "-- status $?"
done
rm -rf "$scratch"
