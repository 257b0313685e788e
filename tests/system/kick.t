# A guest that blocks the kick and sleeps or spins in the stub's own code
# costs everyone else at most a few ticks: five such attackers one after
# another (as uid 65534), and a ticker sleeping 50 ms at a time whose
# worst gap between wake-ups must stay under a second (the attackers
# held the virtual CPU for 4 s each before).
. "$(dirname "$0")/lib.sh"

boot -- /t/bin/kickfreeze
gap=$(sed -n 's/^ticker: .* worst gap \([0-9]*\) ms$/\1/p' "$T/out")
if [ "$status" = 0 ]; then
	ok "kick-blocking attackers killed; ticker's worst gap ${gap} ms"
else
	fail "kick-blocking attackers" "status $status: $(tr '\n' ';' < "$T/out")"
fi
