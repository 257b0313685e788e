#!/bin/sh
# imgfuzz.sh FIRST COUNT [JOBS]: image fuzzing.  Damages copies of two
# small ext2 images (1 KiB blocks, 4 KiB blocks with 128-byte inodes)
# with tools/ext2damage, seeds FIRST .. FIRST+COUNT-1, and has vkernel
# (from an intact initramfs) mount each as a second disk and walk it:
# stat, ls -la, cat or readlink of everything find lists, then create,
# write, rename and unlink in every directory, grow a file, truncate one
# and remove the trees (freeing what damaged pointers point at), umount.  JOBS boots
# run at once (default 1).
#
# A seed passes when the walk reaches its end ("survived"): a mount
# error, EIO/EUCLEAN or any other failure of the commands is fine.  It
# fails ("crash") on a panic, a host signal, a sanitizer report or a
# hang (60 s).  Prints "ok   imgfuzz seed N" or "FAIL imgfuzz seed N: why"
# (the image, its damage and the log stay in $IMGFUZZ_DIR, by default
# $BUILD/imgfuzz), then "imgfuzz: N images (N mounted), N crashes".
set -u
first=$1 count=$2 jobs=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$(cd "${BUILD:-build}" && pwd) || exit 1	# BUILD may be absolute
vk=$build/vkernel
work=${IMGFUZZ_DIR:-$build/imgfuzz}
PATH=$PATH:/sbin:/usr/sbin
rm -rf "$work" && mkdir -p "$work/tree" "$work/boot"

# The tree on each image: directories of one and of several blocks,
# nesting, files with direct, indirect and double-indirect blocks, a hole,
# fast and slow symlinks, a hard link, an empty file, a fifo.
t=$work/tree
mkdir -p "$t/big" "$t/a/b/c/d/e" "$t/small"
i=0; while [ $i -lt 120 ]; do : > "$t/big/entry-with-a-longer-name-$i"; i=$((i + 1)); done
printf 'hello\n' > "$t/small/f"
head -c 20000 /dev/urandom > "$t/ind"
head -c 400000 /dev/urandom > "$t/dind"
dd if=/dev/urandom of="$t/hole" bs=1k seek=600 count=1 2>/dev/null
printf 'deep\n' > "$t/a/b/c/d/e/f"
ln -s small/f "$t/fast" && ln -s "$(printf '%0200d' 0)" "$t/slow"
ln "$t/small/f" "$t/a/hard" && : > "$t/empty" && mkfifo "$t/fifo"
mke2fs -q -F -t ext2 -b 1024 -E root_owner=0:0 -d "$t" "$work/base1k.img" 12M \
    > /dev/null 2>&1 || exit 1
mke2fs -q -F -t ext2 -b 4096 -I 128 -E root_owner=0:0 -d "$t" \
    "$work/base4k.img" 16M > /dev/null 2>&1 || exit 1

# The walker, on an initramfs with busybox.
cat > "$work/boot/walk.sh" <<'EOF'
mkdir -p /mnt
if mount -t ext2 /dev/vkd0 /mnt 2>/dev/null; then
	# Bounded: a damaged directory may link back to an ancestor.
	find /mnt -maxdepth 8 2>/dev/null | head -2000 > /tmp/list
	while read -r f; do
		stat "$f"
		if [ -L "$f" ]; then readlink "$f"
		elif [ -d "$f" ]; then ls -la "$f"
		elif [ -f "$f" ]; then cat "$f"; fi
	done < /tmp/list > /dev/null 2>&1
	while read -r f; do
		[ -d "$f" ] && [ ! -L "$f" ] || continue
		echo new > "$f/.fz" && echo more >> "$f/.fz" && mv "$f/.fz" "$f/.fy"
		mkdir "$f/.fd" && rmdir "$f/.fd"
		rm -f "$f/.fy"
	done < /tmp/list 2> /dev/null
	dd if=/dev/zero of=/mnt/grow bs=4k count=64 2> /dev/null
	(: > /mnt/dind) 2> /dev/null
	rm -rf /mnt/small /mnt/ind /mnt/hole /mnt/a /mnt/big 2> /dev/null
	umount /mnt 2> /dev/null
	echo "mounted, $(wc -l < /tmp/list) names"
else
	echo "not mounted"
fi
echo survived
EOF
tools=$top/tools
"$tools/mkinitramfs" "$work/walk.cpio" "$work/boot" > /dev/null || exit 1

# one SEED: damages, boots and judges one image; prints its result line.
one() {
	_s=$1
	case $((_s % 2)) in 0) _base=base1k ;; 1) _base=base4k ;; esac
	_img=$work/$_s.img _log=$work/$_s.log
	cp "$work/$_base.img" "$_img"
	"$tools/ext2damage" "$_img" "$_s" > "$work/$_s.damage" || {
		echo "FAIL imgfuzz seed $_s: ext2damage failed"; return; }
	timeout 60 "$vk" -v -m 64m --initramfs "$work/walk.cpio" -r "$_img" \
	    -- /bin/sh /walk.sh > "$_log.out" 2> "$_log" < /dev/null
	_rc=$?
	_why=
	if [ $_rc = 124 ]; then _why="hang"
	elif grep -q 'Sanitizer\|runtime error' "$_log"; then _why="sanitizer"
	elif grep -q 'panic' "$_log"; then _why="panic"
	elif ! grep -q survived "$_log.out"; then _why="status $_rc"
	fi
	if [ -z "$_why" ]; then
		echo "ok   imgfuzz seed $_s ($_base, $(grep -m1 mounted "$_log.out"))"
		rm -f "$_img" "$_log" "$_log.out" "$work/$_s.damage"
	else
		echo "FAIL imgfuzz seed $_s ($_base): $_why: $(tr '\n' ';' < "$work/$_s.damage")$(grep -m1 'panic\|ERROR\|runtime error' "$_log")"
	fi
}

s=$first end=$((first + count))
while [ $s -lt $end ]; do
	j=0
	while [ $j -lt "$jobs" ] && [ $s -lt $end ]; do
		one $s > "$work/result.$s" &
		s=$((s + 1)) j=$((j + 1))
	done
	wait
done
s=$first
while [ $s -lt $end ]; do cat "$work/result.$s"; rm -f "$work/result.$s"; s=$((s + 1)); done |
    tee "$work/results"
echo "imgfuzz: $count images ($(grep -c ', mounted' "$work/results") mounted), $(grep -c '^FAIL' "$work/results") crashes"
! grep -q '^FAIL' "$work/results"
