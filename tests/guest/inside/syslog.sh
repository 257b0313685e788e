# busybox syslogd and logger: a datagram AF_UNIX socket bound to a path
# in devfs (/dev/log), found by the sender through the file system.
bad=0
syslogd -n -O /tmp/messages & pid=$!
i=0
while [ ! -S /dev/log ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if [ -S /dev/log ]; then echo "ok /dev/log is a socket"
else echo "FAIL no socket /dev/log"; bad=1; fi
logger -t vktest "hello over /dev/log"
i=0
while ! grep -q "vktest: hello over /dev/log" /tmp/messages 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
if grep -q "vktest: hello over /dev/log" /tmp/messages; then echo "ok logger reached syslogd"
else echo "FAIL logger's message not in /tmp/messages"; bad=1; fi
kill $pid
wait $pid 2>/dev/null
exit $bad
