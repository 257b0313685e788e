# The manual page and make install: docs/vkernel.8 passes mandoc's lint
# and renders through man(1) without a warning, documents every option
# main() takes, and make install puts the program and the page where its
# FILES section says (make uninstall takes them away).
. "$(dirname "$0")/lib.sh"
page=docs/vkernel.8

if ! command -v mandoc >/dev/null && [ "$(id -u)" = 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mandoc >/dev/null 2>&1
fi
if command -v mandoc >/dev/null; then
	mandoc -T lint -W warning "$page" > "$T/lint" 2>&1 && ok "mandoc -T lint: no warnings" ||
	    fail "mandoc -T lint: no warnings" "$(head -5 "$T/lint")"
else
	fail "mandoc -T lint" "mandoc is not installed (apt-get install mandoc)"
fi
MANWIDTH=80 man --warnings -l "$page" > "$T/page" 2> "$T/warn"
st=$?
[ $st = 0 ] && [ ! -s "$T/warn" ] && grep -q "^EXIT STATUS" "$T/page" &&
    ok "man -l renders it without warnings" ||
    fail "man -l renders it without warnings" "status $st: $(head -5 "$T/warn")"
for s in NAME SYNOPSIS DESCRIPTION OPTIONS SIGNALS "CONSOLE ESCAPE" DDB FILES \
    EXAMPLES "EXIT STATUS" "SEE ALSO"; do
	grep -q "^\.Sh $s\$" "$page" || missing="${missing:-} [$s]"
done
[ -z "${missing:-}" ] && ok "every section" || fail "every section" "missing$missing"

# Every option of main()'s getopt string and long options has its .It.
opts=$(sed -n 's/.*getopt_long(argc, argv, "+\([^"]*\)".*/\1/p' boot/main.c | tr -d ':')
longs=$(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", .*/\1/p' boot/main.c)
undoc=
for o in $(echo "$opts" | sed 's/./& /g'); do
	grep -q "^\.It Fl $o\b" "$page" || undoc="$undoc -$o"
done
for o in $longs; do
	grep -q "Fl \\\\-$o\b" "$page" || undoc="$undoc --$o"
done
[ -n "$opts" ] && [ -z "$undoc" ] && ok "the page documents every option" ||
    fail "the page documents every option" "undocumented:$undoc"

# make install DESTDIR=... PREFIX=/usr: bin/vkernel and
# share/man/man8/vkernel.8, as FILES says; the installed program runs.
dest=$T/dest
make -s -o "$BUILD/vkernel" install BUILD="$BUILD" DESTDIR="$dest" PREFIX=/usr \
    > "$T/make" 2>&1
files=$(cd "$dest" && find . -type f | sort | tr '\n' ' ')
[ "$files" = "./usr/bin/vkernel ./usr/share/man/man8/vkernel.8 " ] &&
    grep -q "^\.It Pa PREFIX/bin/vkernel$" "$page" &&
    grep -q "^\.It Pa PREFIX/share/man/man8/vkernel.8$" "$page" &&
    [ -x "$dest/usr/bin/vkernel" ] && ok "make install: where the page says" ||
    fail "make install: where the page says" "$files $(head -3 "$T/make")"
"$dest/usr/bin/vkernel" -m 64m --initramfs "$ROOT" -- /bin/sh -c 'exit 4' \
    > /dev/null 2>&1 < /dev/null
st=$?
[ $st = 4 ] && ok "the installed vkernel runs alone" ||
    fail "the installed vkernel runs alone" "status $st"
MANWIDTH=80 man -l "$dest/usr/share/man/man8/vkernel.8" 2>/dev/null | grep -q "^NAME" &&
    ok "the installed page renders" || fail "the installed page renders" "no NAME"
make -s uninstall DESTDIR="$dest" PREFIX=/usr > "$T/make" 2>&1
[ -z "$(find "$dest" -type f)" ] && ok "make uninstall" ||
    fail "make uninstall" "$(find "$dest" -type f)"
