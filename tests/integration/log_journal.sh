#!/bin/sh
# Where fabrouted's lines go. By hand (standard error a file or a
# terminal): local time and level name first, a banner saying what runs.
# Under systemd (standard error the stream $JOURNAL_STREAM names): straight
# to the journal with fields, caught here by a stand-in journal socket in a
# mount namespace of the test's own: PRIORITY, SYSLOG_IDENTIFIER,
# FABROUTE_TOPIC from a "word:" message, the banner's FABROUTE_SOURCE.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
need python3 curl

d_start hand --topology gen:kary-ntree:k=2,n=2 || { not_ok "fabrouted starts"; done_testing; }
d_wait_epoch 1
d_stop
log=$(cat "$D_LOG")
like "by hand: each line starts with the local time and the level" "$log" \
	'^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}[+-][0-9]{4} notice: fabrouted [0-9.]+ starting: '
like "the banner says the configuration, source, chain, database and address" "$log" \
	'starting: configuration \(defaults and flags\); source file \(gen:kary-ntree:k=2,n=2\); engine chain [a-z,]+, publish_policy proven, repair ftdlr; database .*; API on 127\.0\.0\.1:[0-9]+; log level info$'
is "by hand: no \"<N>\" prefix" "$(printf '%s\n' "$log" | grep -c '^<[0-9]>' || true)" 0

if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null 2>&1; then
	ok "the journal # SKIP needs root and unshare for a stand-in journal socket"
	done_testing
fi
cat >"$t_tmp/journal.py" <<'EOP'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
open(sys.argv[2] + ".ready", "w").close()
with open(sys.argv[2], "ab", buffering=0) as out:
    while True:
        out.write(s.recv(65536) + b"\n--\n")
EOP
port=$((20000 + $$ % 20000))
cat >"$t_tmp/run.sh" <<EOS
set -e
mount -t tmpfs none /run
mkdir -p /run/systemd/journal
python3 "$t_tmp/journal.py" /run/systemd/journal/socket "$t_tmp/journal.out" &
jp=\$!
while [ ! -e "$t_tmp/journal.out.ready" ]; do sleep 0.05; done
: >"$t_tmp/stderr"
JOURNAL_STREAM=\$(stat -c '%d:%i' "$t_tmp/stderr") "$FABROUTED" --topology gen:kary-ntree:k=2,n=2 \
	--listen 127.0.0.1:$port --db "$t_tmp/j.db" --token-file "$t_tmp/token" 2>>"$t_tmp/stderr" &
fp=\$!
i=0
until curl -s -o /dev/null "http://127.0.0.1:$port/api/health" || [ \$i -gt 100 ]; do sleep 0.1; i=\$((i + 1)); done
curl -s -o /dev/null -H "Authorization: Bearer \$(cat "$t_tmp/token")" \
	-d '{"action":"down","link":"leaf-00:3"}' "http://127.0.0.1:$port/api/faults" || true
sleep 0.5
kill \$fp; wait \$fp || true
kill \$jp
EOS
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$t_tmp/token"
chmod 600 "$t_tmp/token"
runs "fabrouted under a stand-in journal" 0 unshare -m sh "$t_tmp/run.sh"
j=$(cat "$t_tmp/journal.out" 2>/dev/null)
is "under the journal: nothing on standard error" "$(cat "$t_tmp/stderr")" ""
like "the banner is a journal entry with its priority and identifier" \
	"$(printf '%s\n' "$j" | grep -A8 '^MESSAGE=fabrouted .* starting:' | tr '\n' ' ')" \
	'PRIORITY=5 SYSLOG_IDENTIFIER=fabrouted .*FABROUTE_SOURCE=file'
like "a \"word:\" message carries FABROUTE_TOPIC" \
	"$(printf '%s\n' "$j" | grep -A4 '^MESSAGE=fault: link' | tr '\n' ' ')" 'FABROUTE_TOPIC=fault'
done_testing
