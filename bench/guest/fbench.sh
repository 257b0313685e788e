#!/bin/bash
# filebench's guest side (bench/filebench.sh), run the same in a chroot of
# the Debian root on the host, inside vkernel booted on its image and
# under User-Mode Linux: one "name value" line per figure and run.
#
#   fbench.sh main RUNS   exec of /bin/true from bash (ms per exec, 50
#                         execs a run), python3 -c pass (ms), make -j2 of
#                         /t/proj (s, and "build-out" with its program's
#                         output)
#   fbench.sh map         /t/mapread on /t/big twice: cold, then warm
#
# As UML's init (init=/t/fbench.sh, the mode in $fbmode and $fbruns from
# the kernel command line) it mounts /proc first.
export LC_ALL=C PATH=/usr/sbin:/usr/bin:/sbin:/bin
mode=${1:-${fbmode:-main}}
runs=${2:-${fbruns:-5}}
[ $$ != 1 ] || mount -t proc proc /proc 2>/dev/null
ms() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.3f\n", (b - a) * 1000 / n }'; }
case $mode in
main)
	for _ in $(seq "$runs"); do
		t0=$EPOCHREALTIME
		for _ in $(seq 50); do /bin/true; done
		t1=$EPOCHREALTIME
		echo "exec-true-ms $(ms "$t0" "$t1" 50)"
	done
	for _ in $(seq "$runs"); do
		t0=$EPOCHREALTIME; python3 -c pass; t1=$EPOCHREALTIME
		echo "python3-ms $(ms "$t0" "$t1" 1)"
	done
	rm -rf /tmp/proj && cp -r /t/proj /tmp/proj
	for _ in $(seq "$runs"); do
		make -s -C /tmp/proj clean
		t0=$EPOCHREALTIME; make -s -j2 -C /tmp/proj > /dev/null; t1=$EPOCHREALTIME
		echo "build-s $(ms "$t0" "$t1" 1000)"
	done
	echo "build-out $(/tmp/proj/prog)"
	rm -rf /tmp/proj
	;;
map)
	/t/mapread /t/big cold
	/t/mapread /t/big warm
	;;
esac
echo "fbench: done"
