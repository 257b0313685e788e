# Busybox applets on generated data.
T=$1
seq 1 200 > nums
printf 'pear\napple\nfig\napple\nkiwi\n' > fruit
echo "wc: $(wc -l < nums) $(wc -w < fruit)"
sort fruit | uniq -c | sed 's/^ *//'
sort -rn nums | head -3 | tr '\n' ' '; echo
tail -2 nums | tr '\n' ' '; echo
awk '{ s += $1 } END { print "sum", s }' nums
grep -c 1 nums
grep -n apple fruit
cut -c1-3 fruit | tr 'a-z' 'A-Z' | paste -s -d,
mkdir -p tree/a/b tree/c && touch tree/a/b/f1 tree/c/f2
find tree -type f | sort
find tree -name 'f*' | xargs -n1 basename | sort
md5sum nums | cut -d' ' -f1
tar cf t.tar tree nums && tar tf t.tar | sort | head -4
gzip -c nums > nums.gz && gzip -dc nums.gz | md5sum | cut -d' ' -f1
ls tree | sort
echo "expr: $(expr 6 \* 7)"
dmesg | grep -c "^\[ *[0-9]*\.[0-9]\{6\}\] " >/dev/null && echo "dmesg: timestamped lines"
