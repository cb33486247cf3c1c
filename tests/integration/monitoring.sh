#!/bin/sh
# /metrics and what is built on it: the metrics the issue asks for are there
# with sane values (build info, process, routes per link matching the
# evaluation's maximum, the API latency histogram, rounded floats); the
# Grafana dashboard and the Prometheus rules refer only to metrics real
# daemons export (file and opensm sources), their queries parse as PromQL,
# every alert fires when it should (promtool test rules); every metric is
# documented in doc/api.md (tests/integration/monitoring_check.py).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is needed"

d_start mon --topology gen:ft648 --metrics-link-routes all || { not_ok "fabrouted starts"; done_testing; }
d_wait_epoch 1 || not_ok "the first epoch is published"
api GET /api/health
curl -s "$D_URL/metrics" >"$t_tmp/file.metrics"
m=$(cat "$t_tmp/file.metrics")
like "build info with the version" "$m" "^fabroute_build_info\\{version=\"$(jf .version)\"\\} 1$"
like "process CPU seconds" "$m" '^process_cpu_seconds_total [0-9.]+$'
like "resident memory" "$m" '^process_resident_memory_bytes [1-9][0-9]+$'
like "open fds" "$m" '^process_open_fds [1-9][0-9]*$'
like "start time" "$m" '^process_start_time_seconds 1[0-9]{9}(\.[0-9]{1,3})?$'
like "API latency histogram counts the requests" "$m" '^fabroute_api_request_duration_seconds_count [1-9][0-9]*$'
like "API latency histogram: +Inf bucket" "$m" '^fabroute_api_request_duration_seconds_bucket\{le="\+Inf"\} [1-9]'
is "routes per link: one series per direction of each switch-to-switch link" \
	"$(grep -c '^fabroute_link_routes{' "$t_tmp/file.metrics")" 1296
max=$(sed -n 's/^fabroute_max_link_load //p' "$t_tmp/file.metrics")
top=$(sed -n 's/^fabroute_link_routes{.*} //p' "$t_tmp/file.metrics" | sort -n | tail -1)
is "routes per link: the busiest is the evaluation's max link load" "$top" "$max"
like "routes per link: labels name both ends" "$m" \
	'^fabroute_link_routes\{guid="0x[0-9a-f]{16}",port="[0-9]+",node="leaf-00",remote_guid="0x[0-9a-f]{16}",remote_port="[0-9]+",remote_node="spine-[0-9]+"\} [0-9]+$'
api GET /api/topology
is "routes per link agree with /api/topology" \
	"$(jf '[.links[] | .routes_ab, .routes_ba] | add')" \
	"$(sed -n 's/^fabroute_link_routes{.*} //p' "$t_tmp/file.metrics" | awk '{s += $1} END {print s}')"
like "no float printed with more than 6 decimals" \
	"$(grep -v '^#' "$t_tmp/file.metrics" | grep -cE ' -?[0-9]*\.[0-9]{7,}$' || true)" '^0$'
like "counters present from the start: OpenSM passes, 0 with source file" "$m" \
	'^fabroute_osm_passes_total\{result="fallback"\} 0$'
is "source file: no plugin connection gauge (no plugin to miss)" "$(grep -c '^fabroute_osm_connected' "$t_tmp/file.metrics")" 0
is "fabroute_ready is what /api/ready answers (200)" "$(sed -n 's/^fabroute_ready //p' "$t_tmp/file.metrics")/$(curl -s -o /dev/null -w '%{http_code}' "$D_URL/api/ready")" 1/200
d_stop

# metrics_link_routes: the busiest N (the default, 64), or none
d_start top --topology gen:ft648 || { not_ok "fabrouted starts (top)"; done_testing; }
d_wait_epoch 1
curl -s "$D_URL/metrics" >"$t_tmp/top.metrics"
is "metrics_link_routes top:64 by default: 64 series" "$(grep -c '^fabroute_link_routes{' "$t_tmp/top.metrics")" 64
is "  the busiest first: the first is the evaluation's max link load" \
	"$(sed -n 's/^fabroute_link_routes{.*} //p' "$t_tmp/top.metrics" | head -1)" \
	"$(sed -n 's/^fabroute_max_link_load //p' "$t_tmp/top.metrics")"
is "  they are the 64 largest of all the links" \
	"$(sed -n 's/^fabroute_link_routes{.*} //p' "$t_tmp/top.metrics" | sort -n | head -1)" \
	"$(sed -n 's/^fabroute_link_routes{.*} //p' "$t_tmp/file.metrics" | sort -rn | sed -n 64p)"
d_stop
d_start off --topology gen:ft648 --metrics-link-routes off || { not_ok "fabrouted starts (off)"; done_testing; }
d_wait_epoch 1
is "metrics_link_routes off: no series" "$(curl -s "$D_URL/metrics" | grep -c '^fabroute_link_routes')" 0
d_stop
runs "metrics_link_routes: a bad value is refused" 3 "$FABROUTED" -n --metrics-link-routes top:0
like "  naming the key and what it takes" "$err" "metrics_link_routes: expected all, off or top:N"

d_start osm --source opensm --socket "$t_tmp/osm.sock" || not_ok "fabrouted starts with source opensm"
curl -s "$D_URL/metrics" >"$t_tmp/osm.metrics"
like "source opensm: drift metrics" "$(cat "$t_tmp/osm.metrics")" '^fabroute_lft_drift_entries -1$'
like "source opensm: the plugin connection gauge, 0 before OpenSM connects" "$(cat "$t_tmp/osm.metrics")" \
	'^fabroute_osm_connected 0$'
is "source opensm: fabroute_ready is what /api/ready answers before the first pass (503)" \
	"$(sed -n 's/^fabroute_ready //p' "$t_tmp/osm.metrics")/$(curl -s -o /dev/null -w '%{http_code}' "$D_URL/api/ready")" 0/503
d_stop

python3 "$top_srcdir/tests/integration/monitoring_check.py" "$top_srcdir/contrib/grafana/fabroute.json" \
	"$top_srcdir/contrib/prometheus/fabroute.rules.yml" "$top_srcdir/doc/api.md" "$t_tmp/dashboard.rules.yml" \
	"$t_tmp/file.metrics" "$t_tmp/osm.metrics" >"$t_tmp/check.out" 2>&1
while IFS= read -r line; do
	case $line in
	PASS\ *) ok "${line#PASS }" ;;
	SKIP\ *) ok "${line#SKIP } # SKIP" ;;
	FAIL\ *) not_ok "${line#FAIL }" ;;
	*) not_ok "monitoring_check.py: $line" ;;
	esac
done <"$t_tmp/check.out"

if command -v promtool >/dev/null 2>&1; then
	runs "promtool: the rules are valid" 0 promtool check rules "$top_srcdir/contrib/prometheus/fabroute.rules.yml"
	runs "promtool: every dashboard query parses" 0 promtool check rules "$t_tmp/dashboard.rules.yml"
	[ "$st" -eq 0 ] || diag "$out"
	runs "promtool: each alert fires when it should, and only then" 0 \
		sh -c "cd '$top_srcdir/tests/data/prometheus' && promtool test rules fabroute.rules.test.yml"
	[ "$st" -eq 0 ] || diag "$out"
else
	ok "promtool checks # SKIP promtool is not installed (scripts/setup.sh installs prometheus)"
fi
done_testing
