# Shared by the tests of fabrouted under real OpenSM on ibsim: the plugin,
# OpenSM, its log, the switches' tables. Source after tests/lib.sh and
# tests/integration/daemon_lib.sh; skips the test when a part is missing.
have_ibsim || skip_all "ibsim, umad2sim or infiniband-diags missing"
for t in opensm dump_fts; do command -v $t >/dev/null 2>&1 || skip_all "$t missing"; done
plugin=${FABROUTE_OSM_PLUGIN:-$top_builddir/.libs/libfabroute-osm.so}
[ -r "$plugin" ] || skip_all "no OpenSM plugin at $plugin (built only with libopensm-dev)"
# OpenSM dlopen()s "libfabroute-osm.so" through the loader's path: a directory holding nothing else
plugdir=$t_tmp/plugin
mkdir -p "$plugdir"
cp "$plugin" "$plugdir/libfabroute-osm.so"

# osm_start [ARGS...]: OpenSM on $t_tmp/osm.conf (ARGS added to its command
# line), its log in $t_tmp/osm.log, dumps in $t_tmp; sets OSM_PID
osm_start() {
	( cd "$t_tmp" && LD_PRELOAD=$UMAD2SIM LD_LIBRARY_PATH=$plugdir OSM_CACHE_DIR=$t_tmp OSM_TMP_DIR=$t_tmp \
		exec opensm -F "$t_tmp/osm.conf" -s 0 -d 2 -f "$t_tmp/osm.log" -D 0x43 --dump_files_dir "$t_tmp" \
		"$@" >"$t_tmp/osm.out" 2>&1 ) &
	OSM_PID=$!
	t_sim_pids="$OSM_PID $t_sim_pids"
}

# wait_log PATTERN COUNT: until OpenSM's log holds COUNT lines matching PATTERN
wait_log() {
	i=0
	while n=$(grep -c -- "$1" "$t_tmp/osm.log" 2>/dev/null); [ "${n:-0}" -lt "$2" ]; do
		i=$((i + 1))
		[ $i -gt 300 ] && { diag "no '$1' (x$2) in OpenSM's log"; return 1; }
		sleep 0.1
	done
}

# same_tables DESC: the switches (dump_fts) hold what fabrouted publishes
# (GET /api/lfts); leaves $t_tmp/hw.txt and $t_tmp/ours.txt
same_tables() {
	sim_run dump_fts >"$t_tmp/hw.dump" 2>/dev/null
	lft_entries "$t_tmp/hw.dump" >"$t_tmp/hw.txt"
	api GET /api/lfts
	printf '%s\n' "$body" >"$t_tmp/ours.dump"
	lft_entries "$t_tmp/ours.dump" >"$t_tmp/ours.txt"
	if [ -s "$t_tmp/hw.txt" ] && cmp -s "$t_tmp/hw.txt" "$t_tmp/ours.txt"; then ok "$1"; else
		not_ok "$1"; diff "$t_tmp/ours.txt" "$t_tmp/hw.txt" | head -10 | sed 's/^/# /'; fi
}
