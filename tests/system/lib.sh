# Helpers for the system tests: boot vkernel, check what it did.
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
name_of_test=$(basename "$0" .t)

ok() { echo "ok $name_of_test: $1"; }
fail() { echo "FAIL $name_of_test: $1: $2"; }
# A check that cannot run here (no privilege, no host feature): the reason.
skip() { echo "skip $name_of_test: $1"; }

# boot [vkernel options] -- init args: runs vkernel on $ROOT (or $IMAGE
# options given as arguments), stdout in $T/out, the log in $T/log.
boot() {
	timeout 60 "$VK" -v -m 64m --initramfs "${SYSROOT:-$ROOT}" "$@" \
	    > "$T/out" 2> "$T/log" < /dev/null
	status=$?
}

# waitfor FILE TEXT: up to 20 s for TEXT (a grep pattern) to show in FILE.
waitfor() {
	for i in $(seq 200); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

expect_status() {
	[ "$status" = "$2" ] && ok "$1" || fail "$1" "status $status, expected $2"
}

expect_output() {
	[ "$(cat "$T/out")" = "$2" ] && ok "$1" ||
	    fail "$1" "output \"$(head -c 300 "$T/out")\""
}

expect_log() {
	grep -q "$2" "$T/log" && ok "$1" || fail "$1" "no \"$2\" in the log"
}
