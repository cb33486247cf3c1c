#!/bin/sh
# Slurm's topology.conf from `fabroute topology`, read by a real slurmctld
# (Debian's slurm-wlm 22.05, with munge), each started by hand on loopback
# with a configuration in this test's directory (no systemd, nothing
# outside it): `scontrol show topology` lists every switch of the fabric and
# every host under its leaf, for the 648-port tree (two levels) and a 4-ary
# 3-tree (three). Debian's Slurm predates topology/block: the block form of
# a dragonfly is checked against Slurm's documented syntax instead.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
need slurmctld scontrol munged mungekey jq python3

F=$FABROUTE
D=$t_tmp
chmod 711 "$D"	# munged wants every directory above its socket searchable by all
pids=""
stop_all() {
	for p in $pids; do
		kill "$p" 2>/dev/null
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
		kill -9 "$p" 2>/dev/null
	done
	pids=""
}
trap 'stop_all; t_cleanup' EXIT INT TERM

mungekey -c -k "$D/munge.key" >/dev/null 2>&1 || { not_ok "mungekey makes a key"; done_testing; }
munged -F --key-file="$D/munge.key" --socket="$D/munge.sock" --pid-file="$D/munged.pid" \
	--seed-file="$D/munged.seed" --log-file="$D/munged.log" >"$D/munged.out" 2>&1 &
pids="$pids $!"
i=0
while [ ! -S "$D/munge.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if [ -S "$D/munge.sock" ]; then ok "munged runs on $D/munge.sock"; else
	not_ok "munged runs"; sed 's/^/# /' "$D/munged.out"; done_testing; fi

# free_port: a TCP port of loopback nobody listens on now
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# slurmctld_start NAME NODES: slurmctld_try until one binds its port (another may take it meanwhile)
slurmctld_start() {
	for try in 1 2 3; do
		slurmctld_try "$@" && return 0
		grep -q "Address already in use" "$D/$1/out" || return 1
		stop_all_but_munge
	done
	return 1
}

# slurmctld_try NAME NODES: a controller for hosts NODES (a hostlist) reading $D/NAME/topology.conf
slurmctld_try() {
	dir=$D/$1
	port=$(free_port)
	mkdir -p "$dir/state"
	cat >"$dir/slurm.conf" <<EOF
ClusterName=fabroute
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$(id -un)
AuthType=auth/munge
AuthInfo=socket=$D/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmctldLogFile=$dir/slurmctld.log
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
TopologyPlugin=topology/tree
ProctrackType=proctrack/pgid
NodeName=$2 NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=all Nodes=ALL Default=YES State=UP
EOF
	SLURM_CONF=$dir/slurm.conf slurmctld -D -f "$dir/slurm.conf" >"$dir/out" 2>&1 &
	pids="$pids $!"
	i=0
	while ! SLURM_CONF=$dir/slurm.conf scontrol ping >/dev/null 2>&1 && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	SLURM_CONF=$dir/slurm.conf scontrol ping >/dev/null 2>&1
}

# check NAME FABRIC: topology.conf of FABRIC read by slurmctld
check() {
	name=$1 fab=$2
	mkdir -p "$D/$name"
	runs "$name: fabroute topology --format slurm-tree" 0 "$F" topology --format slurm-tree \
		--topology "$fab" -o "$D/$name/topology.conf"
	"$F" hosts --topology "$fab" --format json >"$D/$name/hosts.json"
	nodes=$(grep '^SwitchName=.* Nodes=' "$D/$name/topology.conf" | sed 's/.* Nodes=//' | paste -sd, -)
	if slurmctld_start "$name" "$nodes"; then
		ok "$name: slurmctld starts with the file"
	else
		not_ok "$name: slurmctld starts with the file"
		sed 's/^/# /' "$D/$name/out" | tail -20
		return
	fi
	SLURM_CONF=$D/$name/slurm.conf scontrol show topology >"$D/$name/shown" 2>&1
	# every switch of the fabric, by its description
	want=$(grep -c '^Switch' "$fab")
	is "$name: scontrol show topology lists every switch ($want)" \
		"$(grep -c '^SwitchName=' "$D/$name/shown")" "$want"
	is "$name: ... each once, with the fabric's names" \
		"$(sed -n 's/^SwitchName=\([^ ]*\) .*/\1/p' "$D/$name/shown" | sort | uniq | wc -l)" "$want"
	# every host under the leaf its port is cabled to
	bad=0 n=0
	for leaf in $(awk '/^SwitchName=/ && / Level=0 / { sub(/^SwitchName=/, "", $1); print $1 }' "$D/$name/shown"); do
		list=$(sed -n "s/^SwitchName=$leaf Level=0 .*Nodes=\([^ ]*\).*/\1/p" "$D/$name/shown")
		got=$(SLURM_CONF=$D/$name/slurm.conf scontrol show hostnames "$list" | sort | paste -sd' ' -)
		exp=$(jq -r --arg l "$leaf" '.hosts[] | select(.ports[0].leaf.node == $l) | .host' \
			"$D/$name/hosts.json" | sort | paste -sd' ' -)
		[ "$got" = "$exp" ] || { bad=$((bad + 1)); diag "$leaf: slurm has '$got', the fabric '$exp'"; }
		n=$((n + $(printf '%s\n' "$got" | wc -w)))
	done
	is "$name: every leaf holds the hosts cabled to it" "$bad" 0
	is "$name: every host is under a leaf" "$n" "$(jq .count "$D/$name/hosts.json")"
	stop_all_but_munge
}

# Only slurmctld: munged stays for the next.
stop_all_but_munge() {
	munge_pid=${pids%% *}
	rest=${pids#* }
	pids=$rest
	stop_all
	pids=$munge_pid
}
pids=$(echo $pids)

"$F" gen ft648 -o "$D/ft648.ibnd"
check ft648 "$D/ft648.ibnd"
like "ft648: the spines have the 36 leaves below them" "$(cat "$D/ft648/shown")" \
	"SwitchName=spine-00 Level=1 LinkSpeed=1 Nodes=node-\[000-647\] Switches=leaf-\[00-35\]"
"$F" gen kary-ntree k=4 n=3 -o "$D/k43.ibnd"
check k43 "$D/k43.ibnd"
like "k43: three levels, the top with every host" "$(cat "$D/k43/shown")" \
	"SwitchName=spine-00 Level=2 LinkSpeed=1 Nodes=node-\[00-63\] Switches=l2-\[00,04,08,12\]"
export SLURM_CONF="$D/k43/slurm.conf"	# scontrol show hostnames reads a configuration

# topology/block on a dragonfly, against topology.conf(5) (Slurm 23.11 and later)
"$F" gen dragonfly a=4 p=2 h=2 -o "$D/df.ibnd"
runs "dragonfly: fabroute topology --format slurm-block" 0 "$F" topology --format slurm-block \
	--topology "$D/df.ibnd" -o "$D/block.conf"
lines=$(grep -v '^#' "$D/block.conf")
is "one BlockName line per group (9), then BlockSizes" \
	"$(printf '%s\n' "$lines" | sed 's/=.*//' | uniq -c | awk '{print $1 $2}' | paste -sd' ' -)" \
	"9BlockName 1BlockSizes"
is "every line is NAME=VALUE [Nodes=HOSTLIST]" \
	"$(printf '%s\n' "$lines" | grep -Evc '^(BlockName=[A-Za-z0-9._-]+ Nodes=[][A-Za-z0-9._,-]+|BlockSizes=[0-9]+(,[0-9]+)*)$')" 0
sizes=$(printf '%s\n' "$lines" | sed -n 's/^BlockSizes=//p')
base=${sizes%%,*}
min=99999 total=0
for list in $(printf '%s\n' "$lines" | sed -n 's/^BlockName=[^ ]* Nodes=//p'); do
	c=$(scontrol show hostnames "$list" | wc -l)
	total=$((total + c))
	[ "$c" -lt "$min" ] && min=$c
done
is "the first BlockSize is the smallest block's host count" "$base" "$min"
ok_sizes=1 prev=0
for s in $(printf '%s\n' "$sizes" | tr , ' '); do
	q=$((s / base))
	[ $((s % base)) -eq 0 ] && [ $((q & (q - 1))) -eq 0 ] && [ "$s" -gt "$prev" ] || ok_sizes=0
	prev=$s
done
is "each BlockSize a power of two times the first, increasing" "$ok_sizes" 1
is "every host in a block" "$total" "$(grep -c '^Ca' "$D/df.ibnd")"
is "no host in two blocks" "$(printf '%s\n' "$lines" | sed -n 's/^BlockName=[^ ]* Nodes=//p' |
	while read -r l; do scontrol show hostnames "$l"; done | sort | uniq -d | wc -l)" 0
runs "slurm-tree on a dragonfly: refused (exit 1)" 1 "$F" topology --format slurm-tree --topology "$D/df.ibnd"
like "... saying why" "$err" "not a tree: .*use the block form"
done_testing
