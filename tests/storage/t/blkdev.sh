# Block devices from inside, as dd, blockdev, mke2fs and e2fsck use them.
# Booted with vkd0 the root (1 KiB blocks), vkd1 a 16 MiB disk holding
# /t/pat at its start, vkd2 a read-only disk.  $1: "first" (the first
# boot: reads, ioctls, writes /t/pat2 at 4 MiB) or "second" (reads
# /t/pat2 back, makes and checks a file system).
. /t/lib.sh
bin=/t/bin/blkdev

# Reads the device in a loop until killed.
busy_reader() {
	while :; do dd if=/dev/vkd1 of=/dev/null bs=64k 2>/dev/null; done
}

case $1 in
first)
	eq raw-read same "$(dd if=/dev/vkd1 bs=64k count=16 2>/dev/null |
	    cmp - /t/pat && echo same)"
	eq stat "block special file fe:1" "$(stat -c '%F %t:%T' /dev/vkd1)"
	eq getsize64 16777216 "$(blockdev --getsize64 /dev/vkd1)"
	eq getsz 32768 "$(blockdev --getsz /dev/vkd1)"
	eq getss 512 "$(blockdev --getss /dev/vkd1)"
	eq getbsz 4096 "$(blockdev --getbsz /dev/vkd1)"
	eq getro 0 "$(blockdev --getro /dev/vkd1)"
	eq getro-ro 1 "$(blockdev --getro /dev/vkd2)"
	# The root's blocks are the block size of its disk while mounted.
	eq getbsz-root 1024 "$(blockdev --getbsz /dev/vkd0)"
	ok flushbufs blockdev --flushbufs /dev/vkd1
	fails rereadpt "Invalid argument" blockdev --rereadpt /dev/vkd1
	$bin io /dev/vkd1 16777216
	$bin.glibc io /dev/vkd1 16777216 | sed 's/^\(ok  \|FAIL\) /\1 glibc-/'
	$bin busy /dev/vkd0
	$bin ro /dev/vkd2
	fails ro-dd "Operation not permitted" dd if=/t/pat of=/dev/vkd2 bs=4k count=1
	fails past-end "No space left" dd if=/dev/zero of=/dev/vkd1 bs=4k seek=4096 count=1
	ok write dd if=/t/pat2 of=/dev/vkd1 bs=4k seek=1024 conv=fsync
	eq write-read same "$(dd if=/dev/vkd1 bs=4k skip=1024 count=64 2>/dev/null |
	    cmp - /t/pat2 && echo same)"
	;;
second)
	eq reboot-read same "$(dd if=/dev/vkd1 bs=4k skip=1024 count=64 2>/dev/null |
	    cmp - /t/pat2 && echo same)"
	# mke2fs while another opener keeps its writes cached in 4 KiB
	# buffers: the mount (1 KiB blocks) reads them, not the stale disk.
	exec 3</dev/vkd1
	ok mke2fs mke2fs -q /dev/vkd1
	mkdir -p /mnt
	ok fsck-fresh e2fsck.static -fn /dev/vkd1
	$bin exclmount /dev/vkd1 /mnt
	exec 3<&-
	ok mount mount -t ext2 /dev/vkd1 /mnt
	fails mount-twice "busy" mount -t ext2 /dev/vkd1 /mnt
	$bin share /dev/vkd1 /mnt
	echo inside > /mnt/made-inside
	sync
	# Once synced, the device shows the mounted file system whole.
	ok fsck-mounted e2fsck.static -fn /dev/vkd1
	# Unmounts while a program reads the device (its buffers are busy).
	busy_reader &
	reader=$!
	i=0 good=0
	while [ $i -lt 20 ]; do
		umount /mnt && mount -t ext2 /dev/vkd1 /mnt && good=$((good + 1))
		i=$((i + 1))
	done
	kill $reader; wait $reader 2>/dev/null
	eq remount-busy 20 $good
	eq remounted inside "$(cat /mnt/made-inside)"
	ok umount umount /mnt
	ok fsck-after e2fsck.static -fn /dev/vkd1
	;;
esac
