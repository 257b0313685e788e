# mount(2) and umount2(2) inside vkernel (natively they would change the
# host).  Prints ok/FAIL lines; the status is 1 if anything failed.
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

check "boot mounts" 'grep -q "^proc /proc proc rw" /proc/mounts &&
    grep -q "^devtmpfs /dev devtmpfs rw" /proc/mounts'
mkdir -p /mnt/a /mnt/p /mnt/d
check "mount tmpfs" 'mount -t tmpfs -o size=1m,mode=0750 scratch /mnt/a'
check "in /proc/mounts" 'grep -q "^scratch /mnt/a tmpfs rw 0 0$" /proc/mounts'
check "in /proc/self/mounts" 'grep -q "^scratch /mnt/a tmpfs" /proc/self/mounts'
check "mount lists it" 'mount | grep -q "^scratch on /mnt/a type tmpfs"'
check "size option" '[ "$(df /mnt/a | awk "NR == 2 { print \$2 }")" = 1024 ]'
check "mode option" '[ "$(stat -c %a /mnt/a)" = 750 ]'
echo data > /mnt/a/f
check "df counts a page" '[ "$(df /mnt/a | awk "NR == 2 { print \$3 }")" = 4 ]'
exec 3< /mnt/a/f
check "open file: EBUSY" '! umount /mnt/a 2>/dev/null'
exec 3<&-
cd /mnt/a
check "cwd: EBUSY" '! umount /mnt/a 2>/dev/null'
cd /
check "umount" 'umount /mnt/a && ! grep -q " /mnt/a " /proc/mounts'
check "covered dir back" '[ ! -e /mnt/a/f ]'

check "read-only mount" 'mount -t tmpfs -o ro none /mnt/a &&
    grep -q "^none /mnt/a tmpfs ro " /proc/mounts'
check "EROFS" '! touch /mnt/a/x 2>/dev/null && ! mkdir /mnt/a/d 2>/dev/null'
check "statfs says ro" '[ "$(stat -f -c %l /mnt/a)" = 255 ] && umount /mnt/a'

check "mount proc" 'mount -t proc proc /mnt/p && [ -L /mnt/p/self ] &&
    [ "$(readlink /mnt/p/self)" != "" ] && umount /mnt/p'
check "mount devtmpfs" 'mount -t devtmpfs dev /mnt/d && [ -c /mnt/d/null ] &&
    [ -c /mnt/d/console ] && umount /mnt/d'
check "unknown type" '! mount -t nosuchfs none /mnt/a 2>/dev/null'
check "not a mount point" '! umount /mnt/a 2>/dev/null'
check "root busy" '! umount / 2>/dev/null'
check "/dev/shm is writable" 'echo x > /dev/shm/f && [ "$(cat /dev/shm/f)" = x ]'
check "/dev takes nodes" 'mknod /dev/null2 c 1 3 && echo gone > /dev/null2 && rm /dev/null2'
exit $fail
