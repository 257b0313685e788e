# Helpers for the storage tests run inside: each check prints one line,
# "ok   NAME" or "FAIL NAME: why"; the host counts them.

# eq NAME EXPECTED ACTUAL
eq() {
	if [ "$2" = "$3" ]; then echo "ok   $1"
	else echo "FAIL $1: expected [$2], got [$3]"; fi
}

# ok NAME CMD...: CMD succeeds
ok() {
	_n=$1; shift
	if _o=$("$@" 2>&1); then echo "ok   $_n"
	else echo "FAIL $_n: $(printf '%s' "$_o" | head -c 200)"; fi
}

# fails NAME PATTERN CMD...: CMD fails with PATTERN in its message
fails() {
	_n=$1 _p=$2; shift 2
	if _o=$("$@" 2>&1); then echo "FAIL $_n: succeeded"
	elif printf '%s' "$_o" | grep -q "$_p"; then echo "ok   $_n"
	else echo "FAIL $_n: $(printf '%s' "$_o" | head -c 200)"; fi
}
