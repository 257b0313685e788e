# mount(2) of a second disk: ext2 read-write and read-only, umount, and
# the image clean for e2fsck afterwards.
. "$(dirname "$0")/lib.sh"
PATH=$PATH:/sbin:/usr/sbin

mkdir "$T/tree" && echo hello > "$T/tree/f"
truncate -s 16M "$T/d.img"
mke2fs -q -t ext2 -d "$T/tree" "$T/d.img"

boot -r "$T/d.img" -- /bin/sh -c '
mkdir -p /mnt
mount -t ext2 /dev/vkd0 /mnt && cat /mnt/f
echo new > /mnt/g && umount /mnt && echo unmounted
mount -o ro -t ext2 /dev/vkd0 /mnt
echo x 2>/dev/null > /mnt/h || echo "read-only: refused"
cat /mnt/g
mount -t ext2 /dev/null /mnt 2>/dev/null || echo "not a disk: refused"
umount /mnt && echo done'
expect_output "mount, write, umount, read-only" "hello
unmounted
read-only: refused
new
not a disk: refused
done"
e2fsck -fn "$T/d.img" > "$T/fsck" 2>&1 && ok "the disk is clean after umount" ||
    fail "the disk is clean after umount" "$(tail -3 "$T/fsck")"
[ "$(debugfs -R 'cat /g' "$T/d.img" 2>/dev/null)" = new ] &&
    ok "what was written is on the image" ||
    fail "what was written is on the image" "debugfs cat /g"
