# System-call patching (sys/sys_patch.c, inside/c/patchtrap.c and
# patchrun.c), with musl
# and with glibc: a patched site reads back patched (the documented
# deviation) while a fresh exec of the file is untouched, and jumps into
# the trampoline with forged registers get a signal or the site's own
# call, nothing more.  Patching is on: the tests run in the latency
# placement, whose default it is.  Status 1 if anything failed.
fail=0
for p in /t/inside/bin/patchtrap /t/inside/bin/patchtrap.glibc; do
	$p text || { echo "FAIL $(basename $p) text"; fail=1; }
	$p abuse || { echo "FAIL $(basename $p) abuse"; fail=1; }
	$p cp || { echo "FAIL $(basename $p) cp"; fail=1; }
done
# Run sites: "mov $nr,%eax; <register-only instructions>; syscall" (c/patchrun.c).
for p in /t/inside/bin/patchrun /t/inside/bin/patchrun.glibc; do
	for m in run threads fork; do
		$p $m || { echo "FAIL $(basename $p) $m"; fail=1; }
	done
done
exit $fail
