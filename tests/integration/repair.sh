#!/bin/sh
# Repair now, rebalance later (fabrouted, file source): a link fault of the
# 648-port tree routed by sftree is repaired at once (a "repair" event with
# the blocks changed, ftdlr's tables, only the fault's group touched); once
# the fabric is stable the chain's routing replaces it, or not when it would
# change more blocks than allowed; the link's return gives the base's tables
# back; the 4-ary 3-tree's sftree routing is repaired on its one VL;
# repair = none routes with the chain.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"

# d_wait_event TYPE: wait for an event of TYPE; its details in $body.
d_wait_event() {
	i=0
	while :; do
		api GET "/api/events?type=$1&limit=1"
		[ "$(jf '.events | length')" -ge 1 ] 2>/dev/null && { body=$(jf '.events[0]'); return 0; }
		i=$((i + 1))
		[ $i -gt $((200 * T_SLOW)) ] && { diag "no $1 event"; return 1; }
		sleep 0.05
	done
}

d_start r --topology gen:ft648 --holddown-ms 0 --rebalance-delay-s 1 --rebalance-max-blocks 0 ||
	{ not_ok "fabrouted starts"; done_testing; }
d_wait_epoch 1
# the snapshot writer yields the cores to the reroutes: 10 nicer than the daemon
main_nice=$(awk '{print $19}' "/proc/$D_PID/stat")
writer=$(grep -l '^fr-snapshots$' /proc/"$D_PID"/task/*/comm 2>/dev/null | head -1)
is "the snapshot writer is a thread of its own, named" "${writer:+found}" found
want=$((main_nice + 10 > 19 ? 19 : main_nice + 10))
is "the snapshot writer runs at nice $want" "$(awk '{print $19}' "${writer%comm}stat" 2>/dev/null)" "$want"
api GET /api/lfts
printf '%s' "$body" >"$t_tmp/base.lfts"
api POST /api/faults '{"action":"down","link":"leaf-03:20"}'
is "fault accepted" "$code" 202
d_wait_epoch 2
api GET /api/fabric
is "the fault: epoch 2 by ftdlr" "$(jf .epoch.engine)" ftdlr
is "the fault: reason fault" "$(jf .epoch.reason)" fault
is "the repair is connected and deadlock-free" "$(jf .routing.ready)" true
d_wait_event repair
like "repair event: blocks counted" "$(jf .message)" "local repair, [1-9][0-9]* LFT entries in [1-9][0-9]* blocks on [1-4] switches changed from epoch 1"
is "repair event: deadlock-free" "$(jf .details.deadlock_free)" true
is "repair event: at most 4 switches" "$(jf '.details.changed.switches <= 4')" true
d_wait_event rebalance
is "rebalance adopted once stable" "$(jf .details.adopted)" true
is "rebalance: as many pairs" "$(jf '.details.pairs_after >= .details.pairs_before')" true
is "rebalance: every step deadlock-free" "$(jf .details.steps_deadlock_free)" true
api GET /api/fabric
is "rebalance: epoch 3" "$(jf .epoch.seq)" 3
is "rebalance: by the chain" "$(jf .epoch.engine)" sftree
is "rebalance: reason rebalance" "$(jf .epoch.reason)" rebalance
d_stop
is "stopped cleanly" "$D_STATUS" 0

# a rebalance that would change too many blocks is declined (the default bound
# holds sftree's full routing of a fault on this tree back); recovery gives the base back
d_start m --topology gen:ft648 --holddown-ms 0 --rebalance-delay-s 1 ||
	{ not_ok "fabrouted starts (max blocks)"; done_testing; }
d_wait_epoch 1
api POST /api/faults '{"action":"down","link":"leaf-03:20"}'
d_wait_epoch 2
d_wait_event rebalance
is "rebalance declined over rebalance_max_blocks" "$(jf .details.adopted)" false
like "says why" "$(jf .details.why)" "changes [0-9]+ LFT blocks, rebalance_max_blocks is 64"
api GET /api/fabric
is "the repair stays" "$(jf .epoch.engine)/$(jf .epoch.seq)" ftdlr/2
api POST /api/faults '{"action":"up","link":"leaf-03:20"}'
d_wait_epoch 3
api GET /api/fabric
is "recovery: repaired from the base" "$(jf .epoch.engine)" ftdlr
api GET /api/lfts
is "recovery: the base's tables byte for byte" "$(printf '%s' "$body" | cmp -s - "$t_tmp/base.lfts" && echo same)" same
d_stop

# the 4-ary 3-tree with the default chain (sftree first): the link between a
# middle switch and a leaf outside sftree's subtree root's pod, whose
# repair used to close a cycle with sftree's switch paths, is repaired on
# the one VL, turning at the subtree root
d_start k --topology gen:kary-ntree:k=4,n=3 --holddown-ms 0 --rebalance-delay-s 3600 \
	--log-level debug || { not_ok "fabrouted starts (4-ary 3-tree)"; done_testing; }
d_wait_epoch 1
# idle, the daemon prepares the base's repairs (after the sums of its proof);
# a restart that restores the base from the store prepares them again
d_wait_prepared() {
	i=0
	while ! grep -q "epoch 1: its repairs prepared for [0-9.]* ms$" "$D_LOG.new"; do
		i=$((i + 1))
		[ $i -gt $((200 * T_SLOW)) ] && break
		sleep 0.05
	done
	like "4-ary 3-tree: the repairs prepared when idle$1" "$(grep "its repairs prepared" "$D_LOG.new")" \
		"epoch 1: its repairs prepared for [0-9.]+ ms$"
}
d_wait_prepared
d_stop
d_start k --topology gen:kary-ntree:k=4,n=3 --holddown-ms 0 --rebalance-delay-s 3600 \
	--log-level debug || { not_ok "fabrouted starts again (4-ary 3-tree)"; done_testing; }
d_wait_epoch 1
like "4-ary 3-tree: restored" "$(cat "$D_LOG.new")" "restored from snapshot [0-9]+ without recomputing"
d_wait_prepared ", after a restart"
api POST /api/faults '{"action":"down","link":"l2-10:2"}'
d_wait_epoch 2
api GET /api/fabric
is "4-ary 3-tree: repaired by ftdlr from sftree" "$(jf .epoch.engine)" ftdlr
d_wait_event repair
is "4-ary 3-tree: not refused" "$(jf '.details.refused // false')" false
is "4-ary 3-tree: deadlock-free" "$(jf .details.deadlock_free)" true
like "4-ary 3-tree: turned at the subtree root" "$(jf .details.notes)" "turned at the base's subtree root 'leaf-00'"
api GET /api/vl-usage
is "4-ary 3-tree: VL 0 only" "$(jf '.vls_used | tostring')" "[0]"
is "4-ary 3-tree: SL 0 only" "$(jf '.sl2vl.sls_used | tostring')" "[0]"
# beyond k - 1 = 3: the four top switches above l2-04 lose their link to it
# (five faults with l2-10:2); a repair that does not prove is refused,
# saying why, and the chain routes
for l in spine-00:2 spine-04:2 spine-08:2 spine-12:2; do
	api POST /api/faults "{\"action\":\"down\",\"link\":\"$l\"}"
done
i=0
while :; do
	api GET "/api/events?type=repair&limit=100"
	why=$(jf '[.events[] | select(.details.refused) | .details.why][0] // empty')
	[ -n "$why" ] && break
	i=$((i + 1))
	[ $i -gt $((200 * T_SLOW)) ] && break
	sleep 0.05
done
like "beyond k - 1: a refused repair says why" "$why" "^ftdlr: routed, not accepted: .*repair \(scope minimal\) of 5 link and 0 switch faults .*beyond k - 1 = 3"
d_stop

# repair = none: the chain routes every change
d_start n --topology gen:ft648 --holddown-ms 0 --repair none ||
	{ not_ok "fabrouted starts (repair none)"; done_testing; }
d_wait_epoch 1
api POST /api/faults '{"action":"down","link":"leaf-03:20"}'
d_wait_epoch 2
api GET /api/fabric
is "repair none: the chain routes" "$(jf .epoch.engine)" sftree
api GET "/api/events?type=repair"
is "repair none: no repair event" "$(jf '.events | length')" 0
d_stop
done_testing
