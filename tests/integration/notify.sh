#!/bin/sh
# Readiness through the sd_notify protocol (Type=notify): READY=1 once the
# API listens and the first routing is published, a STATUS line naming the
# epoch, RELOADING=1/READY=1 around SIGHUP, STOPPING=1 on SIGTERM, and
# WATCHDOG=1 twice per WatchdogSec= period (WATCHDOG_USEC).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is needed to play systemd's side"

sock=$t_tmp/notify.sock
python3 - "$sock" "$t_tmp/notify.log" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(60)
with open(sys.argv[2], "w", buffering=1) as log:
    try:
        while True:
            msg = s.recv(4096).decode()
            log.write(msg.replace("\n", "|") + "\n")
            if "STOPPING=1" in msg:
                break
    except socket.timeout:
        pass
PY
listener=$!
i=0
while [ ! -S "$sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done

NOTIFY_SOCKET=$sock WATCHDOG_USEC=400000 d_start n --engine sftree || { not_ok "fabrouted starts"; done_testing; }
unset NOTIFY_SOCKET WATCHDOG_USEC
d_wait_epoch 1
i=0
while ! grep -q "READY=1" "$t_tmp/notify.log" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
like "READY=1 after the first routing" "$(cat "$t_tmp/notify.log")" "READY=1"
like "STATUS names the epoch and the engine" "$(cat "$t_tmp/notify.log")" "STATUS=epoch 1: sftree, ready"
sleep 1
like "WATCHDOG=1 every 200 ms with WatchdogSec=0.4s" \
	"$(grep -c '^WATCHDOG=1$' "$t_tmp/notify.log")" '^([3-9]|[1-9][0-9]+)$'
kill -HUP "$D_PID"
i=0
while [ "$(sed -n '/RELOADING=1/,$p' "$t_tmp/notify.log" | grep -c 'READY=1')" -eq 0 ] && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
like "SIGHUP: RELOADING=1" "$(cat "$t_tmp/notify.log")" "RELOADING=1"
is "SIGHUP: READY=1 again after RELOADING=1" \
	"$(sed -n '/RELOADING=1/,$p' "$t_tmp/notify.log" | grep -c 'READY=1')" 1
is "READY=1 twice in all (start, reload)" "$(grep -c 'READY=1' "$t_tmp/notify.log")" 2
d_stop
is "SIGTERM: exit 0" "$D_STATUS" 0
wait "$listener" 2>/dev/null
like "SIGTERM: STOPPING=1" "$(cat "$t_tmp/notify.log")" "STOPPING=1"
done_testing
