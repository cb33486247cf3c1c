#!/bin/sh
# Hosts get their DLIDs: `fabroute hosts` on compute's output and GET
# /api/hosts[/{host}] give each host the path bits of the DLID plan (the
# same on files and in the daemon), as JSON, a table, UCX configuration and
# a shell fragment that exports UCX_IB_LID_PATH_BITS on the host sourcing
# it; host and switch names from the descriptions or a node-name-map;
# GET /api/topology?format= gives the same topology.conf as `fabroute
# topology` on the file. Bad requests are refused by name.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
. "$top_srcdir/tests/integration/daemon_lib.sh"
need jq python3

F=$FABROUTE
D=$t_tmp

# on files: compute -e opt on T(9+9, 18), its plan, and hosts --dir
"$F" gen gft2 n=9 m=9 r=18 -o "$D/t9.ibnd"
"$F" compute -e opt --topology "$D/t9.ibnd" -d "$D/opt" >/dev/null
runs "hosts --dir: JSON" 0 "$F" hosts --dir "$D/opt" --format json
printf '%s' "$out" >"$D/offline.json"
is "162 hosts" "$(jq .count "$D/offline.json")" 162
# the plan's offsets, by port GUID (sources without a line: 0)
awk '!/^#/ && NF == 2 { print $1, $2 }' "$D/opt/dlid-plan" | sort >"$D/plan.txt"
jq -r '.hosts[].ports[] | select(.path_bits != 0) | "\(.guid) \(.path_bits)"' "$D/offline.json" | sort >"$D/bits.txt"
is "every host's path bits are its offset in the DLID plan" "$(cmp -s "$D/plan.txt" "$D/bits.txt" && echo same)" same
is "opt's plan depends on the source only: no other DLIDs" "$(jq '[.hosts[].other_dlids] | add' "$D/offline.json")" 0
# mixed LMCs (pathsel gives each port the LIDs its paths need): UCX sends to base | bits
# and drops bits of 2^LMC of its own port or more; other_dlids are the CAs that rule misses
"$F" gen kary-ntree k=2 n=3 -o "$D/k2.ibnd"
"$F" compute -e pathsel --topology "$D/k2.ibnd" -d "$D/ps" >/dev/null
"$F" hosts --dir "$D/ps" --format json >"$D/ps.json"
cat >"$D/ucx_rule.py" <<'PY'
import json, sys
hosts = json.load(open(sys.argv[1]))
ports = {p["guid"]: p for h in hosts["hosts"] for p in h["ports"]}
off, pair = {}, {}
for line in open(sys.argv[2]):
    t = line.split()
    if not t or t[0].startswith("#"):
        continue
    if len(t) == 2:
        off[t[0]] = int(t[1])
    else:
        pair[(t[0], t[1])] = int(t[2], 0)
wrong = others = 0
for s, p in ports.items():
    b = p["path_bits"]
    want = {}
    for d, q in ports.items():
        planned = pair.get((s, d), q["lid"] + (off.get(s, 0) & ((1 << q["lmc"]) - 1)))
        if d != s and q["lid"] | b != planned:
            want[d] = planned
    wrong += b >= 1 << p["lmc"] or want != p["other_dlids"]
    others += len(want)
print(len(set(p["lmc"] for p in ports.values())), wrong, others > 0)
PY
is "pathsel: mixed LMCs; every port's path bits below 2^LMC, other_dlids exactly the CAs base | bits misses" \
	"$(python3 "$D/ucx_rule.py" "$D/ps.json" "$D/ps/dlid-plan")" "2 0 True"
runs "hosts --dir HOST --format ucx" 0 "$F" hosts --dir "$D/opt" node-003 --format ucx
like "UCX_IB_LID_PATH_BITS for node-003 (group 1)" "$out" "^UCX_IB_LID_PATH_BITS=1$"
like "with the port and its LIDs in a comment" "$out" "# port 0x[0-9a-f]{16} \(node-003, LID 0x[0-9a-f]{4}, LMC 2\)"
runs "hosts --dir --format text" 0 "$F" hosts --dir "$D/opt"
like "a table" "$out" "^HOST +PORT GUID +LID +LMC +PATH BITS +OTHER DLIDS"
runs "an unknown host: exit 1" 1 "$F" hosts --dir "$D/opt" nobody
like "... named" "$err" "no host 'nobody'"
runs "a bad format: exit 2" 2 "$F" hosts --dir "$D/opt" --format yaml
mkdir "$D/noplan"
cp "$D/opt/topology.ibnd" "$D/noplan/"
runs "LMC > 0 without a plan" 0 "$F" hosts --dir "$D/noplan" node-003
like "... warns that base LIDs are shown" "$err" "warning: ports own several LIDs and no DLID plan"

# the env fragment: sourced on a host, it exports that host's path bits
runs "hosts --format env" 0 "$F" hosts --dir "$D/opt" --format env
printf '%s\n' "$out" >"$D/ucx-env.sh"
is "valid sh" "$(sh -n "$D/ucx-env.sh" && echo ok)" ok
mkdir "$D/bin"
for h in node-000 node-004 node-008 node-161; do
	printf '#!/bin/sh\necho %s\n' "$h" >"$D/bin/hostname"
	chmod +x "$D/bin/hostname"
	want=$(jq -r --arg h "$h" '.hosts[] | select(.host == $h) | .ucx.UCX_IB_LID_PATH_BITS' "$D/offline.json")
	is "sourced on $h: UCX_IB_LID_PATH_BITS=$want" \
		"$(PATH="$D/bin:$PATH" sh -c ". '$D/ucx-env.sh'; echo \${UCX_IB_LID_PATH_BITS-unset}")" "$want"
done
printf '#!/bin/sh\necho elsewhere\n' >"$D/bin/hostname"
is "sourced on another host: nothing exported" \
	"$(PATH="$D/bin:$PATH" sh -c ". '$D/ucx-env.sh'; echo \${UCX_IB_LID_PATH_BITS-unset}")" unset

# the daemon routing the same tree with opt
d_start hosts --topology gen:gft2:n=9,m=9,r=18 --engine opt || { not_ok "fabrouted starts"; done_testing; }
d_wait_epoch 1 || not_ok "the first epoch is published"
api GET /api/hosts
is "GET /api/hosts: 200" "$code" 200
is "... 162 hosts" "$(jf .count)" 162
is "... the epoch" "$(jf .epoch.engine)" opt
printf '%s' "$body" | jq -c '.hosts[] | [.host, .ucx.UCX_IB_LID_PATH_BITS]' >"$D/daemon.bits"
jq -c '.hosts[] | [.host, .ucx.UCX_IB_LID_PATH_BITS]' "$D/offline.json" >"$D/offline.bits"
is "the daemon plans the same path bits as compute" \
	"$(cmp -s "$D/daemon.bits" "$D/offline.bits" && echo same)" same
api GET /api/hosts/node-004
is "GET /api/hosts/node-004: 200" "$code $(jf .host) $(jf .ucx.UCX_IB_LID_PATH_BITS)" "200 node-004 1"
guid=$(jf '.ports[0].guid')
lid=$(jf '.ports[0].lid')
api GET "/api/hosts/$guid"
is "a port GUID names the host" "$code $(jf .host)" "200 node-004"
api GET "/api/hosts/$((lid + 1))"
is "any LID of the port's range names the host" "$code $(jf .host)" "200 node-004"
api GET "/api/hosts/node-004?format=ucx"
is "format=ucx: text" "$(printf '%s\n' "$body" | tail -1)" "UCX_IB_LID_PATH_BITS=1"
ctype=$(curl -s -D - -o /dev/null "$D_URL/api/hosts/node-004?format=env" | tr -d '\r' | sed -n 's/^Content-Type: //Ip')
like "format=env: text/plain" "$ctype" "^text/plain"
api GET /api/hosts/nobody
is "an unknown host: 404" "$code" 404
api GET /api/hosts/leaf-00
is "a switch: 400" "$code $(jf .error.code)" "400 bad_parameter"
api GET "/api/hosts?format=yaml"
is "a bad format: 400" "$code" 400
like "... naming the formats" "$(jf .error.message)" "format: expected json, text, ucx or env"
runs "fabroute hosts through the daemon" 0 "$F" hosts --url "$D_URL" node-004 --format ucx
is "... the daemon's text" "$(printf '%s\n' "$out" | tail -1)" "UCX_IB_LID_PATH_BITS=1"

# Slurm's topology.conf: the daemon's equals the file's
api GET "/api/topology?format=slurm-tree"
is "GET /api/topology?format=slurm-tree: 200" "$code" 200
printf '%s\n' "$body" >"$D/daemon.conf"
"$F" topology --format slurm-tree --topology "$D/t9.ibnd" -o "$D/file.conf"
is "the same topology.conf as fabroute topology on the file" "$(cmp -s "$D/daemon.conf" "$D/file.conf" && echo same)" same
like "leaves with their hosts" "$(cat "$D/file.conf")" "^SwitchName=leaf-00 Nodes=node-\[000-008\]$"
like "the top switches with the leaves" "$(cat "$D/file.conf")" "^SwitchName=spine-00 Switches=leaf-\[00-17\]$"
api GET "/api/topology?format=slurm-block"
is "slurm-block on a tree: 409" "$code" 409
like "... saying why" "$(jf .error.message)" "no dragonfly groups"
api GET "/api/topology?format=dot"
is "a bad format: 400" "$code" 400
api GET /api/topology
is "no format: the dashboard's JSON" "$code $(jf .kind)" "200 tree"
runs "fabroute topology through the daemon" 0 "$F" topology --url "$D_URL" --format slurm-tree -o "$D/cli.conf"
is "... the same file" "$(cmp -s "$D/cli.conf" "$D/file.conf" && echo same)" same
d_stop

# a node-name-map names hosts and switches
cat >"$D/names.map" <<'EOF'
# site names
0x0002fab200000010 "cn0000 HCA-1"
0x0002fab200000020	cn0001   # no quotes
0x0002fab100000001 "rack 1/leaf a"
EOF
runs "topology --node-name-map" 0 "$F" topology --format slurm-tree --topology "$D/t9.ibnd" \
	--node-name-map "$D/names.map"
like "hosts renamed" "$out" "^SwitchName=rack_1_leaf_a Nodes=cn\[0000-0001\],node-\[002-008\]$"
like "the switch renamed in the lists above" "$out" "Switches=leaf-\[01-17\],rack_1_leaf_a$"
d_start hosts-names --topology gen:gft2:n=9,m=9,r=18 --node-name-map "$D/names.map" ||
	{ not_ok "fabrouted starts"; done_testing; }
d_wait_epoch 1 || not_ok "the first epoch is published"
api GET /api/hosts/cn0000
is "the daemon's node_name_map names the host (its CA described by the map)" "$code $(jf .ports[0].node)" "200 cn0000 HCA-1"
api GET "/api/topology?format=slurm-tree"
like "... and the switch" "$body" "SwitchName=rack_1_leaf_a Nodes=cn\[0000-0001\],"
d_stop
printf 'node-000 "x"\n' >"$D/bad.map"
runs "fabroute topology refuses a malformed map: exit 3" 3 "$F" topology --format slurm-tree \
	--topology "$D/t9.ibnd" --node-name-map "$D/bad.map"
like "... by line" "$err" "bad.map:1: expected a node GUID .*found 'node-000'"
done_testing
