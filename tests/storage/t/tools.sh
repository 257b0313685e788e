# busybox tools on the ext2 root: tar, cp -a, find, du, df.
. /t/lib.sh
mkdir -p /w2 && cd /w2 || exit 1
mkdir -p src/a/b src/c
echo 1 > src/a/f1
echo 2 > src/a/b/f2
ln -s ../a/f1 src/c/link
ln src/a/f1 src/c/hard
chmod 700 src/c
tar cf t.tar -C src .
mkdir ex && tar xf t.tar -C ex
ok tar-roundtrip diff -r src ex
eq tar-hardlink 2 "$(stat -c %h ex/a/f1)"
cp -a src cpa
ok cp-a diff -r src cpa
eq cp-a-mode 700 "$(stat -c %a cpa/c)"
eq cp-a-symlink ../a/f1 "$(readlink cpa/c/link)"
eq find 8 "$(find src | wc -l)"
eq find-type "src/a/b/f2" "$(find src -name f2 -type f)"
ln -s busybox /bin/zz-new && rm /bin/ls
eq indexed-dir-change "yes no" "$(test -L /bin/zz-new && echo yes) $(test -e /bin/ls && echo yes || echo no)"
ln -s busybox /bin/ls && rm /bin/zz-new
mkdir bins
tar cf - -C / bin sbin | tar xf - -C bins
ok tar-bin cmp /bin/busybox bins/bin/busybox
eq tar-bin-count "$(ls /bin | wc -l)" "$(ls bins/bin | wc -l)"
kb=$(du -sk bins | cut -f1)
[ "$kb" -gt 1000 ] && echo "ok   du" || echo "FAIL du: $kb"
# df reads /proc/mounts for the mount point; statfs is what it asks.
eq statfs-blocks "$1" "$(stat -f -c '%S %b' /)"
if [ -e /proc/mounts ]; then ok df df /; fi
rm -r /w2
ok cleanup test ! -e /w2
