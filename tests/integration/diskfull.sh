#!/bin/sh
# The database on a full disk (a small tmpfs; needs root to mount it):
#  - a fault POST is answered 202 only once it is stored, else 507 JSON and
#    the fault is not applied;
#  - /api/health (503, "degraded"), /api/ready and /metrics show the store
#    error while it lasts;
#  - once space returns the daemon recovers by itself (health 200, the
#    current epoch stored);
#  - after kill -9 every acknowledged fault is there, no refused one is,
#    and the epoch number never falls back.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
[ "$(id -u)" = 0 ] || skip_all "mounting a tmpfs to fill needs root"
disk=$t_tmp/disk
mkdir "$disk"
mount -t tmpfs -o size=3m tmpfs "$disk" 2>/dev/null || skip_all "cannot mount a tmpfs here (no CAP_SYS_ADMIN?)"
df_cleanup() {
	for p in $t_daemon_pids; do kill -9 "$p" 2>/dev/null; done
	sleep 0.2
	umount "$disk" 2>/dev/null || umount -l "$disk" 2>/dev/null
	t_cleanup
}
trap df_cleanup EXIT INT TERM
sw=0x0002fab100000001
args="--db $disk/d.db --topology gen:kary-ntree:k=4,n=2 --holddown-ms 0 --api-write-rate-limit 0"

# shellcheck disable=SC2086
d_start full $args || { not_ok "fabrouted starts"; done_testing; }
d_wait_epoch 1
api POST /api/faults '{"action":"down","link":"0x0002fab100000001:1"}'
is "before the disk fills: a fault is answered 202" "$code" 202
d_wait_idle

dd if=/dev/zero of="$disk/fill" bs=16k 2>/dev/null
diag "disk full: $(df -k "$disk" | tail -1)"

# toggle a switch 30 times; count what was acknowledged and refused
state=up acked=0 refused=0 other=0
for i in $(seq 1 30); do
	[ $state = up ] && want=down || want=up
	api POST /api/faults "{\"action\":\"$want\",\"switch\":\"$sw\"}"
	case $code in
	202) acked=$((acked + 1)); state=$want ;;
	507) refused=$((refused + 1)); body507=$body ;;
	*) other=$((other + 1)); diag "unexpected $code: $body" ;;
	esac
done
diag "on the full disk: $acked acknowledged, $refused refused (507), $other other"
[ "$refused" -gt 0 ] && ok "full disk: fault POSTs are refused ($refused of 30)" ||
	not_ok "full disk: fault POSTs are refused (0 of 30 refused)"
is "full disk: nothing but 202 or 507" "$other" 0
body=$body507
is "full disk: 507 body names the error" "$(jf .error.code)" insufficient_storage
api GET /api/faults
is "full disk: the faults in force are the acknowledged ones" "$(jf '.switches | tostring')" \
	"$([ $state = down ] && echo "[\"$sw\"]" || echo '[]')"
api GET /api/health
is "full disk: /api/health 503" "$code" 503
is "full disk: /api/health says degraded" "$(jf .status)" degraded
is "full disk: /api/health names the full disk" "$(jf .store.disk_full)" true
api GET /api/ready
is "full disk: /api/ready 503" "$code" 503
like "full disk: /api/ready names the store" "$(jf '.failing | join(";")')" "store: "
api GET /metrics
like "full disk: /metrics fabroute_store_ok 0" "$body" "fabroute_store_ok 0"
like "full disk: /metrics counts store errors" "$body" "fabroute_store_errors_total [1-9]"
api GET /api/fabric
seen=$(jf .epoch.seq)

rm -f "$disk/fill"
i=0
while :; do
	api GET /api/health
	[ "$code" = 200 ] && [ "$(jf .store.epoch_stored)" = true ] && break
	i=$((i + 1))
	[ $i -gt $((100 * T_SLOW)) ] && break
	sleep 0.1
done
is "space back: /api/health 200 again" "$code" 200
is "space back: the current epoch is stored" "$(jf .store.epoch_stored)" true
api GET /api/fabric
[ "$(jf .epoch.seq)" -gt "$seen" ] 2>/dev/null && seen=$(jf .epoch.seq)
api GET /api/faults
want=$(jf tostring)

d_stop KILL
# shellcheck disable=SC2086
d_start full $args || { not_ok "fabrouted restarts"; done_testing; }
d_wait_epoch 1
api GET /api/faults
is "after kill -9: exactly the acknowledged faults" "$(jf tostring)" "$want"
api GET /api/fabric
s=$(jf .epoch.seq)
[ "$s" -ge "$seen" ] 2>/dev/null && ok "after kill -9: the epoch number did not fall back ($s >= $seen)" ||
	not_ok "after kill -9: the epoch number did not fall back ($s < $seen)"
d_stop
is "stopped cleanly" "$D_STATUS" 0
done_testing
