#!/bin/bash
# Figures for tests/debian/run.sh, printed beside the checks and never
# asserted: medians of python3 start-up and of one exec of /bin/true
# from bash, the same here (chroot or vkernel) as in the other run.
export LC_ALL=C PATH=/usr/sbin:/usr/bin:/sbin:/bin
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }'; }
for i in $(seq 11); do
	t0=$EPOCHREALTIME; python3 -c pass; t1=$EPOCHREALTIME
	echo "$t0 $t1"
done | awk '{ printf "%.3f\n", ($2 - $1) * 1000 }' | median > /tmp/py.ms
for i in $(seq 7); do
	t0=$EPOCHREALTIME
	for j in $(seq 50); do /bin/true; done
	t1=$EPOCHREALTIME
	echo "$t0 $t1"
done | awk '{ printf "%.4f\n", ($2 - $1) * 1000 / 50 }' | median > /tmp/true.ms
echo "figure python3 -c pass: $(cat /tmp/py.ms) ms (median of 11)"
echo "figure /bin/true from bash: $(cat /tmp/true.ms) ms per exec (median of 7 x 50)"
rm -f /tmp/py.ms /tmp/true.ms
