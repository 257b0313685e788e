#!/bin/sh
# Storage tests: ext2 root images made by tools/mkroot and booted with -r.
# The scripts of t/ check inside and print "ok   NAME" or "FAIL NAME: why";
# the host checks the images after each run (e2fsck -fn, debugfs).
# Last line: "N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${BUILD:-build}" && pwd) || exit 1	# BUILD may be absolute
vk=$build/vkernel
work=$build/storage
PATH=$PATH:/sbin:/usr/sbin
rm -rf "$work" && mkdir -p "$work/stage/t/bin" "$work/host/h"
cp "$here"/t/*.sh "$work/stage/t/"
musl-gcc -static -O2 -Wall -Werror -o "$work/stage/t/bin/asuser" \
    "$here/c/asuser.c" || exit 1
# The guest tests' AF_UNIX program, binding sockets on ext2 (core.sh).
musl-gcc -static -O2 -Wall -Werror -o "$work/stage/t/bin/unixsock" \
    "$here/../guest/c/unixsock.c" || exit 1
# The guest tests' removed-directory program, run here on ext2.
musl-gcc -static -O2 -Wall -Werror -o "$work/stage/t/bin/rmcwd" \
    "$here/../guest/c/rmcwd.c" || exit 1
gcc -static -O2 -Wall -Werror -o "$work/stage/t/bin/rmcwd.glibc" \
    "$here/../guest/c/rmcwd.c" || exit 1
# File mappings over the page cache (compared with native), and data
# written through a mapping surviving kill -9 once msync'ed.
for c in filemap mapsync; do
	musl-gcc -static -O2 -Wall -Werror -o "$work/stage/t/bin/$c" \
	    "$here/c/$c.c" || exit 1
done
gcc -static -O2 -Wall -Werror -o "$work/stage/t/bin/filemap.glibc" \
    "$here/c/filemap.c" || exit 1

pass=0 fail=0
# result NAME STATUS [WHY]
result() {
	if [ "$2" = 0 ]; then pass=$((pass + 1)); echo "ok   storage $1"
	else fail=$((fail + 1)); echo "FAIL storage $1${3:+: $3}"; fi
}
# boot OUT IMG CMD: runs CMD as init on root image IMG; kernel log in OUT.err
boot() {
	_out=$1 _img=$2; shift 2
	timeout 120 "$vk" -v -m 256m ${ncpu:+-n $ncpu} -r "$_img" -- /bin/sh -c "$*" \
	    > "$_out" 2> "$_out.err"
}
# tally PREFIX OUT: counts the ok/FAIL lines a guest printed
tally() {
	_seen=0
	while IFS= read -r _l; do
		case $_l in
		"ok   "*) result "$1 ${_l#ok   }" 0; _seen=1 ;;
		"FAIL "*) _r=${_l#FAIL }; result "$1 ${_r%%:*}" 1 "${_r#*: }"; _seen=1 ;;
		esac
	done < "$2"
	[ $_seen = 1 ] || result "$1" 1 "no output: $(tail -3 "$2.err")"
}
# clean NAME IMG: e2fsck -fn finds nothing wrong
clean() {
	e2fsck -fn "$2" > "$2.fsck" 2>&1
	result "$1 e2fsck" $? "$(grep -v '^Pass\|^e2fsck' "$2.fsck" | head -3)"
}
# poke IMG OFFSET OCTAL-BYTES: patches bytes of an image
poke() {
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
# le32 N: N as four little-endian bytes for poke
le32() {
	printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) \
	    $(($1 >> 16 & 255)) $(($1 >> 24 & 255))
}
# inum IMG PATH: a file's inode number, as debugfs says
inum() {
	debugfs -R "stat $2" "$1" 2>/dev/null | sed -n 's/^Inode: *\([0-9]*\).*/\1/p'
}
# block of a file's first data block, as debugfs says
firstblock() {
	debugfs -R "bmap $2 0" "$1" 2>/dev/null
}

# Files the host puts on the image, with their metadata.
h=$work/host/h
printf 'plain text\n' > "$h/text"
head -c 300000 /dev/urandom > "$h/random"
printf 'mode' > "$h/m640" && chmod 640 "$h/m640"
touch -d '2005-06-07 08:09:10' "$h/m640"
mkdir "$h/dir" && chmod 750 "$h/dir" && printf x > "$h/dir/in"
ln -s text "$h/fastlink"
ln -s "$(printf '%0100d' 0)/$(printf '%0100d' 1)" "$h/slowlink"
ln "$h/text" "$h/hardlink"
list='cd /h && find . | sort | while read -r f; do
	if [ -d "$f" ]; then stat -c "%n %a %u %g %Y" "$f"
	else stat -c "%n %a %u %g %s %Y %h" "$f"; fi
done; find . -type f | sort | xargs md5sum'
expect=$(sh -c "$(echo "$list" | sed "s|cd /h|cd $h|")")

img=$work/root1k.img
MKROOT_SIZE=32M MKROOT_OPTS="-b 1024" tools/mkroot "$img" "$work/stage" \
    "$work/host" || exit 1

# 1. What the host wrote reads back inside, bytes and metadata; the
# superblock counts the mount and records its time.
sbfield() {
	dumpe2fs -h "$1" 2>/dev/null | sed -n "s/^$2: *//p"
}
count0=$(sbfield "$img" "Mount count")
boot "$work/hostfiles" "$img" "$list"
result "1k mount-count" "$([ "$(sbfield "$img" "Mount count")" = $((count0 + 1)) ] &&
    [ "$(sbfield "$img" "Last mount time")" != n/a ] &&
    [ "$(sbfield "$img" "Filesystem state")" = clean ]; echo $?)"
result "1k host-files" "$([ "$(cat "$work/hostfiles")" = "$expect" ]; echo $?)" \
    "$(echo "$expect" | diff - "$work/hostfiles" | head -5)"
clean "1k host-files" "$img"

# 2. File operations inside; what they wrote reads back on the host.
boot "$work/core1k" "$img" "sh /t/core.sh"
tally 1k "$work/core1k"
clean "1k core" "$img"
# A working directory removed under a process (getcwd, "..", readdir,
# creating in it) as natively, musl and glibc.
scratch=$(mktemp -d)
for v in rmcwd rmcwd.glibc; do
	want=$(cd "$scratch" && "$work/stage/t/bin/$v")
	boot "$work/$v" "$img" "cd / && /t/bin/$v"
	result "1k $v" "$([ "$(cat "$work/$v")" = "$want" ]; echo $?)" \
	    "$(echo "$want" | diff - "$work/$v" | head -5 | tr '\n' ' ')"
done
# File mappings on ext2, as natively (musl and glibc).
for v in filemap filemap.glibc; do
	want=$(cd "$scratch" && "$work/stage/t/bin/$v")
	boot "$work/$v" "$img" "cd / && /t/bin/$v"
	result "1k $v" "$([ "$(cat "$work/$v")" = "$want" ]; echo $?)" \
	    "$(echo "$want" | diff - "$work/$v" | head -5 | tr '\n' ' ')"
done
rm -rf "$scratch"
clean "1k rmcwd" "$img"
# Two readers of a netlink or AF_UNIX datagram socket while one's copy waits for the disk
# (its buffer a file page not yet read): each datagram read once, on an
# image of its own (4 MiB of random data, no holes) booted afresh.
rr=$work/recvrace
mkdir -p "$rr/t" && head -c 4194304 /dev/urandom > "$rr/t/blob"
musl-gcc -static -O2 -Wall -Werror -o "$rr/t/recvrace" "$here/c/recvrace.c" ||
    exit 1
MKROOT_SIZE=16M tools/mkroot "$rr.img" "$rr" > /dev/null || exit 1
for fam in netlink unix; do
	cp "$rr.img" "$rr.$fam.img"
	boot "$rr.$fam.out" "$rr.$fam.img" "/t/recvrace $fam /t/blob"
	tally race "$rr.$fam.out"
done
debugfs -R "dump /w/big $work/big" "$img" 2>/dev/null
want=$(debugfs -R "cat /w/big.md5" "$img" 2>/dev/null | cut -d' ' -f1)
got=$(md5sum < "$work/big" | cut -d' ' -f1)
result "1k debugfs-dump" "$([ -n "$want" ] && [ "$want" = "$got" ]; echo $?)" \
    "$want vs $got"

# 3. busybox tools, on the image as the last boot left it, once e2fsck
# has indexed its large directories (dir_index): changing one drops the
# index, which e2fsck must accept.
e2fsck -fyD "$img" > /dev/null 2>&1
result "1k indexed" "$(debugfs -R 'stat /bin' "$img" 2>/dev/null |
    grep -q 'Flags: 0x1000'; echo $?)"
blocks=$(sbfield "$img" "Block count")
boot "$work/tools" "$img" "sh /t/tools.sh '1024 $blocks'"
tally 1k "$work/tools"
clean "1k tools" "$img"

# 4. 4 KiB blocks, 128-byte inodes; and revision 0.
img4=$work/root4k.img
MKROOT_SIZE=48M MKROOT_OPTS="-b 4096 -I 128" tools/mkroot "$img4" \
    "$work/stage" || exit 1
boot "$work/core4k" "$img4" "sh /t/core.sh"
tally 4k "$work/core4k"
clean "4k core" "$img4"
img0=$work/rev0.img
MKROOT_SIZE=16M MKROOT_OPTS="-r 0 -O none" tools/mkroot "$img0" \
    "$work/stage" || exit 1
boot "$work/rev0" "$img0" '. /t/lib.sh; mkdir /r && echo rev0 > /r/f &&
    eq rev0-rw rev0 "$(cat /r/f)"; mv /r/f /r/g; rm -r /r; eq rev0-rm no "$(ls -d /r 2>/dev/null || echo no)"'
tally rev0 "$work/rev0"
clean "rev0" "$img0"

# Two CPUs, four writers in one directory: the locks keep it consistent.
ncpu=2 boot "$work/smp" "$img4" '. /t/lib.sh; mkdir /c
    for i in 1 2 3 4; do (j=0; while [ $j -lt 150 ]; do echo $i.$j > /c/f$i.$j
	mkdir /c/d$i.$j; mv /c/d$i.$j /c/e$i.$j; j=$((j + 1)); done
	dd if=/dev/urandom of=/c/big$i bs=4k count=100 2>/dev/null) & done; wait
    eq smp-entries 1204 "$(ls /c | wc -l)"
    eq smp-links 602 "$(stat -c %h /c)"
    eq smp-content 3.149 "$(cat /c/f3.149)"
    rm -r /c; ok smp-remove test ! -e /c'
tally smp "$work/smp"
clean "smp" "$img4"

# Features: unknown read-only ones mount read-only, unknown incompatible
# ones (ext4 extents, a journal to replay) not at all.  The 4k image has
# its /dev nodes from its first boot.
cp "$img4" "$img4.ro"; poke "$img4.ro" 1125 '\200'
boot "$work/rocompat" "$img4.ro" '. /t/lib.sh
    fails rocompat-write "Read-only" sh -c "echo x > /newfile"
    eq rocompat-read "$(cat /t/lib.sh | wc -l)" "$(wc -l < /t/lib.sh)"'
tally rocompat "$work/rocompat"
result "rocompat logged" "$(grep -q 'mounting read-only' "$work/rocompat.err"; echo $?)"

# Shutdown by SIGTERM and by reboot(2) unmounts: the image is clean.
imgs=$work/shutdown.img
cp "$img4" "$imgs"
"$vk" -m 128m -r "$imgs" -- /bin/sh -c 'echo term > /term; sleep 600 &
    echo READY; wait' > "$work/sigterm" 2>&1 &
pid=$!
i=0
while [ $i -lt 300 ] && ! grep -q READY "$work/sigterm"; do sleep 0.1; i=$((i + 1)); done
kill -TERM $pid; wait $pid
result "sigterm data" "$([ "$(debugfs -R 'cat /term' "$imgs" 2>/dev/null)" = term ]; echo $?)"
clean "sigterm" "$imgs"
boot "$work/poweroff" "$imgs" 'echo off > /off; poweroff -f; sleep 600'
result "poweroff status" $? "$(tail -2 "$work/poweroff.err")"
result "poweroff data" "$([ "$(debugfs -R 'cat /off' "$imgs" 2>/dev/null)" = off ]; echo $?)"
clean "poweroff" "$imgs"

# 5. Durability: what was fsync'ed or synced survives kill -9.
imgd=$work/durable.img
cp "$img4" "$imgd"
"$vk" -m 128m -r "$imgd" -- /bin/sh -c 'echo fsynced > /d1;
    dd if=/d1 of=/d2 conv=fsync 2>/dev/null; echo synced > /d3; sync;
    echo READY; sleep 600' > "$work/durable" 2>&1 &
pid=$!
i=0
while [ $i -lt 300 ] && ! grep -q READY "$work/durable"; do sleep 0.1; i=$((i + 1)); done
kill -9 $pid; wait $pid 2>/dev/null
result "durable fsync" "$([ "$(debugfs -R 'cat /d2' "$imgd" 2>/dev/null)" = fsynced ]; echo $?)"
result "durable sync" "$([ "$(debugfs -R 'cat /d3' "$imgd" 2>/dev/null)" = synced ]; echo $?)"
# Written through a MAP_SHARED mapping only: msync, fsync, or the
# syncer's write-back after munmap (within bio_syncdelay, 5 s, and its
# 1 s period) make it durable; kill -9, then the host reads it.
for how in msync fsync syncer; do
	imgm=$work/map$how.img
	cp "$img4" "$imgm"
	"$vk" -m 128m -r "$imgm" -- /t/bin/mapsync /m "$how" > "$work/map$how" 2>&1 &
	pid=$!
	i=0
	while [ $i -lt 300 ] && ! grep -q ready "$work/map$how"; do sleep 0.1; i=$((i + 1)); done
	[ $how = syncer ] && sleep 8
	kill -9 $pid; wait $pid 2>/dev/null
	result "durable mapped-$how" "$([ "$(debugfs -R 'cat /m' "$imgm" 2>/dev/null)" = "mapped, $how" ]; echo $?)" \
	    "$(debugfs -R 'cat /m' "$imgm" 2>/dev/null | od -c | head -2)"
	e2fsck -fy "$imgm" > /dev/null 2>&1
	clean "mapped-$how after repair" "$imgm"
done

# The crash stays visible: a later clean boot does not call it clean.
boot "$work/durable2" "$imgd" true
result "durable still-not-clean" "$(dumpe2fs -h "$imgd" 2>/dev/null |
    grep -q 'state: *not clean'; echo $?)"

# 6. Disk full: ENOSPC, and the image stays clean.
imgf=$work/full.img
MKROOT_SIZE=8M MKROOT_OPTS="-b 1024" tools/mkroot "$imgf" "$work/stage" || exit 1
boot "$work/full" "$imgf" '. /t/lib.sh
    fails enospc "No space left" dd if=/dev/zero of=/fill bs=64k
    i=0; while [ $i -lt 50 ] && : > /e$i 2>/dev/null; do echo x >> /e$i 2>/dev/null; i=$((i+1)); done
    rm -f /fill /e*; ok after-full sh -c "echo again > /again && cat /again"'
tally full "$work/full"
clean "full" "$imgf"

# 7. Hostile images: a clear mount error, or EIO/EUCLEAN on access; the
# kernel survives either way.
imgh=$work/hostile.img
mkdir -p "$work/hx/x/dir" "$work/hx/x/dir2" "$work/hx/x/loop" \
    "$work/hx/x/c1/d" "$work/hx/x/c2"
printf 'bad' > "$work/hx/x/bad"
head -c 20000 /dev/zero > "$work/hx/x/badind"
: > "$work/hx/x/dir/a" && : > "$work/hx/x/dir2/a"
MKROOT_SIZE=8M MKROOT_OPTS="-b 1024" tools/mkroot "$imgh" "$work/stage" \
    "$work/hx" || exit 1
mountfail() {	# mountfail NAME: the image in $imgh.bad must not mount
	boot "$work/h-$1" "$imgh.bad" "echo mounted"
	rc=$?
	result "hostile $1" "$([ $rc != 0 ] && [ $rc != 124 ] &&
	    grep -q 'ext2 vkd0: cannot mount' "$work/h-$1.err"; echo $?)" \
	    "status $rc, $(tail -2 "$work/h-$1.err")"
}
cp "$imgh" "$imgh.bad"; poke "$imgh.bad" 1080 '\000\000'; mountfail magic
cp "$imgh" "$imgh.bad"; poke "$imgh.bad" 1048 '\011'; mountfail blocksize
cp "$imgh" "$imgh.bad"; poke "$imgh.bad" 1024 '\377\377\377\177'; mountfail inodecount
cp "$imgh" "$imgh.bad"; truncate -s 2M "$imgh.bad"; mountfail truncated
cp "$imgh" "$imgh.bad"; poke "$imgh.bad" 1120 '\102'; mountfail extents
cp "$imgh" "$imgh.bad"; poke "$imgh.bad" 1120 '\006'; mountfail recover
cp "$imgh" "$imgh.bad"
debugfs -w -R "sif /x/bad block[0] 4000000000" "$imgh.bad" 2>/dev/null
debugfs -w -R "sif /x/badind block[IND] 99999999" "$imgh.bad" 2>/dev/null
b=$(firstblock "$imgh.bad" /x/dir)
poke "$imgh.bad" $((b * 1024 + 4)) '\000\020'		# "." overruns the block
b=$(firstblock "$imgh.bad" /x/dir2)
poke "$imgh.bad" $((b * 1024 + 24)) '\377\377\377\177'	# inode out of range
debugfs -w -R "ln /x/loop /x/loop/self" "$imgh.bad" 2>/dev/null
# c1 and c2 each other's "..": a cycle rename's loop check must survive.
poke "$imgh.bad" $(($(firstblock "$imgh.bad" /x/c1) * 1024 + 12)) \
    "$(le32 "$(inum "$imgh.bad" /x/c2)")"
poke "$imgh.bad" $(($(firstblock "$imgh.bad" /x/c2) * 1024 + 12)) \
    "$(le32 "$(inum "$imgh.bad" /x/c1)")"
boot "$work/hostile" "$imgh.bad" '. /t/lib.sh
    fails bad-pointer "needs cleaning" cat /x/bad
    fails bad-indirect "needs cleaning" dd if=/x/badind bs=1k skip=15 count=1
    fails dirent-overrun "needs cleaning" ls /x/dir/a
    fails dirent-inode "needs cleaning" cat /x/dir2/a
    fails dir-loop "needs cleaning" ls /x/loop/self/self
    fails dotdot-cycle "levels" mv /x/c1/d /x/c2/d
    echo survived > /x/after; eq survived survived "$(cat /x/after)"'
tally hostile "$work/hostile"

# 8. Random damage: bytes flipped anywhere in the image's first 3 MB
# but busybox's blocks and inode (so that a shell can run).  Each boot
# must end by itself without a sanitizer report: a mount error, no
# console or init to be found, or the probe surviving the damage it meets.
bbblocks=$(debugfs -R "blocks /bin/busybox" "$imgh" 2>/dev/null)
bbinode=$(debugfs -R "imap /bin/busybox" "$imgh" 2>/dev/null |
    sed -n 's/.*located at block \([0-9]*\),.*/\1/p')
for seed in 1 2 3 4 5 6; do
	cp "$imgh" "$imgh.fz"
	echo $bbblocks $bbinode | tr ' ' '\n' | awk -v s=$seed '
	    NR == FNR { skip[$1] = 1; next }
	    END { srand(s)
		for (n = 0; n < 300; ) {
			off = 1024 + int(rand() * 3000000)
			if (int(off / 1024) in skip) continue
			printf "%d %d\n", off, int(rand() * 256); n++ } }' - /dev/null |
	while read -r off val; do
		poke "$imgh.fz" "$off" "$(printf '\\%03o' "$val")"
	done
	# (-xdev: the image's files; /proc/kmsg, as Linux's, blocks cat)
	boot "$work/fuzz$seed" "$imgh.fz" 'ls -l / /bin /etc /home >/dev/null 2>&1
	    find / -xdev -maxdepth 3 -type f 2>/dev/null | head -100 |
	    xargs cat >/dev/null 2>&1
	    mkdir /fz && echo x > /fz/a && rm -r /fz; echo survived'
	rc=$?
	result "fuzz seed $seed" "$([ $rc != 124 ] &&
	    ! grep -q 'Sanitizer\|runtime error' "$work/fuzz$seed.err" &&
	    { grep -q survived "$work/fuzz$seed" ||
	    grep -q 'cannot mount\|cannot exec\|cannot set up the console' \
	    "$work/fuzz$seed.err"; }; echo $?)" \
	    "status $rc, $(tail -1 "$work/fuzz$seed.err")"
done

# 9. Targeted damage (tools/ext2damage) to a second disk, walked from an
# intact initramfs: a sample of what make fuzz-images does by the thousand.
BUILD=$build IMGFUZZ_DIR=$work/imgfuzz sh "$here/imgfuzz.sh" 1 20 2 > "$work/imgfuzz.out"
tally images "$work/imgfuzz.out"

# 10. kill -9 during fsync loops: nothing acknowledged is lost (make
# fuzz-durability does many more).
BUILD=$build DURABILITY_DIR=$work/durability sh "$here/durability.sh" 1 3 > "$work/durability.out"
tally kill9 "$work/durability.out"

# 11. Block devices from inside (t/blkdev.sh): dd, blockdev, the
# program c/blkdev.c (written against Linux: it passes on a loop device
# too), Debian's e2fsck.static and busybox's mke2fs on a second disk.
command -v e2fsck.static >/dev/null || [ -x /sbin/e2fsck.static ] || {
	if [ "$(id -u)" = 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq e2fsck-static >/dev/null
	else echo "storage tests need e2fsck.static: apt-get install e2fsck-static" >&2; exit 1; fi
}
bd=$work/bd
mkdir -p "$bd/root/t/bin" "$bd/root/sbin"
cp /sbin/e2fsck.static "$bd/root/sbin/"
musl-gcc -static -O2 -Wall -Werror -o "$bd/root/t/bin/blkdev" "$here/c/blkdev.c" &&
    gcc -static -O2 -Wall -Werror -o "$bd/root/t/bin/blkdev.glibc" \
    "$here/c/blkdev.c" || exit 1
head -c 1048576 /dev/urandom > "$bd/root/t/pat"
head -c 262144 /dev/urandom > "$bd/root/t/pat2"
MKROOT_SIZE=32M MKROOT_OPTS="-b 1024" tools/mkroot "$bd/root.img" \
    "$work/stage" "$bd/root" || exit 1
rm -f "$bd/d1.img" "$bd/ro.img"
cp "$bd/root/t/pat" "$bd/d1.img" && truncate -s 16M "$bd/d1.img"
truncate -s 1M "$bd/ro.img"
bdboot() {	# bdboot CMD OUT: root, the 16 MiB disk, a read-only one
	timeout 120 "$vk" -v -m 256m -r "$bd/root.img" -r "$bd/d1.img" \
	    -r "$bd/ro.img:ro" -- /bin/sh -c "$1" > "$2" 2> "$2.err"
}
# bdran OUT LAST: the boot got to its last check, and the kernel lived
bdran() {
	result "blkdev $(basename "$1") ran" "$(grep -q "^.... *$2\$" "$1" &&
	    ! grep -q 'panic\|Sanitizer' "$1.err"; echo $?)" "$(tail -2 "$1.err")"
}
bdboot "sh /t/blkdev.sh first" "$bd/first"
tally blkdev "$bd/first"
bdran "$bd/first" write-read
result "blkdev host-sees-write" "$(dd if="$bd/d1.img" bs=4k skip=1024 count=64 \
    2>/dev/null | cmp -s - "$bd/root/t/pat2"; echo $?)"
bdboot "sh /t/blkdev.sh second" "$bd/second"
tally blkdev "$bd/second"
bdran "$bd/second" fsck-after
clean "blkdev made-inside" "$bd/d1.img"
result "blkdev host-reads-file" "$([ "$(debugfs -R 'cat /made-inside' \
    "$bd/d1.img" 2>/dev/null)" = inside ]; echo $?)"
clean "blkdev root" "$bd/root.img"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
