# Files and directories: create, link, rename, remove, permissions.
T=$1
mkdir d && echo hello > d/f
ln d/f d/hard && ln -s f d/soft
echo "links: $(ls d | sort | tr '\n' ' ')"
cat d/soft; readlink d/soft
echo more >> d/hard; cat d/f
mv d/f d/g && ls d | sort | tr '\n' ' '; echo
[ -e d/soft ] || echo "dangling now"
rm d/soft d/hard
chmod 600 d/g; ls -l d/g | cut -c1-10
mkdir -p deep/a/b/c/d && echo x > deep/a/b/c/d/leaf && rm -r deep && [ ! -e deep ] && echo "rm -r ok"
dd if=/dev/zero of=zeros bs=1024 count=64 2>/dev/null; wc -c < zeros
echo abc > /dev/null; cat /dev/null | wc -c
head -c 16 /dev/zero | od -An -tx1 | tr -s ' '
cd d && pwd | sed 's|.*/||' && cd ..
rmdir d 2>/dev/null || echo "rmdir: not empty"
rm -r d && echo gone
