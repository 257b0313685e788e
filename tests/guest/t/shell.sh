# The shell's own mechanisms: pipes, subshells, substitution, loops,
# here-documents, traps, background jobs, exit statuses.
T=$1
echo "pipeline: $(echo one two three | tr ' ' '\n' | wc -l)"
for i in 1 2 3; do printf '%s,' "$i"; done; echo
i=0; while [ $i -lt 5 ]; do i=$((i + 1)); done; echo "while: $i"
(echo in-subshell; exit 4); echo "subshell status $?"
x=$(echo nested $(echo deeper)); echo "$x"
cat <<END
here-doc with $x
END
trap 'echo got USR1' USR1
kill -USR1 $$
echo after trap
sleep 0.2 & pid=$!
echo started job; wait $pid; echo "job status $?"
# ash prints a killed job's "Terminated" only when the wait builtin's own
# waitpid reaps it; the job dies while kill returns (on Linux too: a
# woken victim preempting the shell), and the non-blocking reap after the
# kill builtin takes it silently.  So the shell reaps it before waiting,
# always: kill -0 finds a live child and its zombie alike, and fails only
# once the SIGCHLD it sent has let the shell reap it (silently).
( sleep 5 >/dev/null; echo should not print ) & victim=$!
kill -TERM $victim
while kill -0 $victim 2>/dev/null; do :; done
wait $victim; echo "killed status $?"
false; echo "false: $?"
true && echo "and-list"
false || echo "or-list"
case foo in f*) echo "case matched";; esac
echo done | { read -r w; echo "read: $w"; }
exit 3
