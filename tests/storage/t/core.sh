# File operations on the ext2 root.
. /t/lib.sh
mkdir -p /w && cd /w || exit 1

# create, read, append, overwrite, truncate
echo hello > f
eq create "hello" "$(cat f)"
echo world >> f
eq append "hello
world" "$(cat f)"
printf 'HE' | dd of=f bs=1 seek=0 conv=notrunc 2>/dev/null
eq overwrite "HEllo
world" "$(cat f)"
truncate -s 3 f
eq truncate-shrink "HEl:3" "$(cat f):$(stat -c %s f)"
truncate -s 5000 f
eq truncate-grow "5000:0" "$(stat -c %s f):$(tail -c +4 f | tr -d '\000' | wc -c)"
: > f
eq truncate-open "0" "$(stat -c %s f)"

# a file through the direct, single and double indirect blocks
dd if=/dev/urandom of=big bs=4096 count=300 2>/dev/null
cp big big2
ok copy-big cmp big big2
eq big-size 1228800 "$(stat -c %s big)"
md5sum big > big.md5

# /proc/meminfo: the page cache holds what was just read and written
# (Cached: files' pages stay after their last close), its changed pages
# are Dirty until sync, and its clean part is available
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
dd if=/dev/urandom of=dirty bs=4096 count=64 2>/dev/null
d=$(meminfo Dirty)
eq meminfo-dirty-before-sync yes "$([ "$d" -ge 256 ] && echo yes || echo "no ($d kB)")"
sync
eq meminfo-dirty-after-sync 0 "$(meminfo Dirty)"
b=$(meminfo Cached)
eq meminfo-cached yes "$([ "$b" -ge 1200 ] && echo yes || echo "no ($b kB)")"
a=$(meminfo MemAvailable) f=$(meminfo MemFree)
eq meminfo-available-counts-clean-cache yes "$([ "$a" -ge $((f + 1000)) ] && echo yes || echo "no ($a, $f kB)")"
rm dirty

# sparse files, one past the triple-indirect threshold (64 MiB at 1 KiB)
dd if=/dev/zero of=sp bs=1 count=1 seek=100M 2>/dev/null
eq sparse-size 104857601 "$(stat -c %s sp)"
printf TRIPLE | dd of=sp bs=1 seek=104857600 conv=notrunc 2>/dev/null
eq sparse-read TRIPLE "$(dd if=sp bs=1 skip=104857600 count=6 2>/dev/null)"
eq sparse-hole 0 "$(dd if=sp bs=4096 skip=20000 count=4 2>/dev/null | tr -d '\000' | wc -c)"
blocks=$(stat -c %b sp)
[ "$blocks" -lt 64 ] && echo "ok   sparse-blocks" || echo "FAIL sparse-blocks: $blocks"
printf BIG | dd of=sp bs=1 seek=5G conv=notrunc 2>/dev/null
eq large-file "5368709123 BIG" "$(stat -c %s sp) $(dd if=sp bs=1 skip=5G count=3 2>/dev/null)"
truncate -s 4096 sp
eq sparse-truncate "4096" "$(stat -c %s sp)"
rm sp

# thousands of files in one directory
mkdir many
i=0
while [ $i -lt 3000 ]; do : > many/file$i; i=$((i + 1)); done
eq many-create 3000 "$(ls many | wc -l)"
i=0
while [ $i -lt 3000 ]; do rm many/file$i; i=$((i + 3)); done
eq many-remove 2000 "$(ls many | wc -l)"
ok many-lookup test -e many/file2999
rm -r many
ok many-rmdir test ! -e many

# a deep tree
d=/w/deep
i=0
while [ $i -lt 60 ]; do d=$d/d$i; i=$((i + 1)); done
mkdir -p "$d"
echo bottom > "$d/leaf"
eq deep-read bottom "$(cat "$d/leaf")"
(cd "$d" && cd ../../.. && pwd > /w/pwd)
eq deep-dotdot "d56" "$(basename "$(cat /w/pwd)")"
rm -r /w/deep
ok deep-remove test ! -e /w/deep

# rename
echo one > r1; echo two > r2
mv r1 r2
eq rename-over "one:no" "$(cat r2):$(test -e r1 && echo yes || echo no)"
mkdir -p da/sub db
n0=$(stat -c %h da)
mv da/sub db/sub
eq rename-dir-links "$n0 $((n0 - 1)) 3" "$n0 $(stat -c %h da) $(stat -c %h db)"
eq rename-dotdot "$(stat -c %i db)" "$(stat -c %i db/sub/..)"
mkdir dc
mv db/sub dc
eq rename-dir-over-empty "yes" "$(test -d dc/sub && echo yes)"
mkdir -p dd/x && : > dd/x/f && mkdir -p de/x
fails rename-nonempty "not empty" mv -T de/x dd/x
mv dc dc2
eq rename-same-dir "2" "$(stat -c %h dc2/sub)"
fails rename-into-self "Invalid argument" mv dc2 dc2/sub/inner
rm -r da db dc2 dd de

# hard links and unlink
echo data > l1
ln l1 l2
eq link-count 2 "$(stat -c %h l1)"
rm l1
eq unlink-keeps "data 1" "$(cat l2) $(stat -c %h l2)"
exec 3< l2
rm l2
eq unlink-open "data" "$(cat <&3)"
exec 3<&-

# symlinks, fast and slow
ln -s /w/target short
long=$(printf '%0200d' 0)
ln -s "$long" long
eq symlink-fast /w/target "$(readlink short)"
eq symlink-slow "$long" "$(readlink long)"
echo via > target
eq symlink-follow via "$(cat short)"
rm short long target

# device nodes and fifos
mknod cdev c 1 3
mknod bdev b 8 1
mkfifo fifo
eq mknod "character special file 1 3;block special file 8 1;fifo" \
    "$(stat -c '%F %t %T' cdev);$(stat -c '%F %t %T' bdev);$(stat -c %F fifo)"
(echo through > fifo &)
eq fifo-io through "$(cat fifo)"
rm cdev bdev fifo

# permissions, owners, timestamps
echo secret > p600; chmod 600 p600
echo open > p644; chmod 644 p644
chown 1000:1000 p644
eq owners "600 0 0;644 1000 1000" "$(stat -c '%a %u %g' p600);$(stat -c '%a %u %g' p644)"
fails perm-denied "denied" /t/bin/asuser 1000 /bin/cat p600
eq perm-owner open "$(/t/bin/asuser 1000 /bin/cat p644)"
fails perm-write "denied" /t/bin/asuser 1000 /bin/sh -c 'echo x > /w/p600'
touch -d '2001-02-03 04:05:06' p644
eq mtime "2001-02-03 04:05:06" "$(stat -c %y p644 | cut -c1-19)"
rm p600 p644

# statfs
eq statfs "ext2/ext3" "$(stat -f -c %T /)"
ok sync sync
