# The shell macro benchmark (bench/guest/kbench.c runs it with busybox sh
# and the applets of bb/ beside it, the same natively and inside):
# 1,000 `echo | md5sum` pipelines, then 500 small files created and
# removed, in the directory $1 (made here, removed at the end).
set -e
d=$1
mkdir -p "$d"
i=0
while [ $i -lt 1000 ]; do
	echo $i | md5sum > "$d/sum"
	i=$((i + 1))
done
i=0
while [ $i -lt 500 ]; do
	echo $i > "$d/f$i"
	i=$((i + 1))
done
i=0
while [ $i -lt 500 ]; do
	rm "$d/f$i"
	i=$((i + 1))
done
rm -r "$d"
