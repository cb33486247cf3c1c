// SPDX-License-Identifier: MIT
// fabroute dashboard: the topology model behind the picture (topoview.js),
// built from GET /api/topology and GET /api/faults.
//
// A large fabric is shown unit by unit: a tree's pods (its subtrees below
// the top level, as the API numbers them) and the top level split into
// spine groups (the top switches that link to the same position of every
// pod, the planes of an m-port n-tree), a dragonfly's groups (or, when a
// fault broke the dragonfly's symmetry, the cliques its groups still form);
// what has no such structure, or too many units, in runs of consecutive
// switches.
// Links between two units form a bundle; links inside a unit stay with it.
// Downed switches and links (the faults in force) come back into the model
// as ghosts, placed where the fabric as cabled had them, so that a fault is
// drawn where it is instead of vanishing.
//
// A link's heat is its load: the busier direction's routes divided by the
// sources that could use it (CAs - 1 for CA-to-CA routes, endpoints - 1
// for all pairs), papers/002's link load: 1 is one host's whole injection
// rate under all-to-all traffic, above 1 the link is oversubscribed.
"use strict";

const Topo = (() => {
	const AGGREGATE_ABOVE = 120;	// switches: more are drawn unit by unit
	const MAX_UNITS = 48;		// more pods or groups are joined in runs
	const byName = new Intl.Collator("en", { numeric: true }).compare;

	// Load -> colour: pale green (idle) to green (1: full rate, not
	// oversubscribed), amber at 1.5, red from 2; grey when nothing crosses.
	const STOPS = [[0, [183, 222, 186]], [1, [46, 125, 50]], [1.5, [240, 160, 20]], [2, [198, 40, 40]]];

	function colour(load, routes) {
		if (!routes)
			return "#c5cad3";
		let i = 0;
		while (i < STOPS.length - 2 && load > STOPS[i + 1][0])
			i++;
		const [a, ca] = STOPS[i], [b, cb] = STOPS[i + 1];
		const f = Math.max(0, Math.min(1, (load - a) / (b - a)));
		const c = ca.map((v, k) => Math.round(v + (cb[k] - v) * f));
		return `rgb(${c[0]},${c[1]},${c[2]})`;
	}

	function scaleCss() {
		const parts = [];
		for (let i = 0; i <= 20; i++)
			parts.push(`${colour(i / 10, 1)} ${i * 5}%`);
		return `linear-gradient(to right, ${parts.join(",")})`;
	}

	// Add @v to the list @map holds under @key.
	function push(map, key, v) {
		const list = map.get(key);
		if (list)
			list.push(v);
		else
			map.set(key, [v]);
	}

	// Runs of at most @size consecutive items of @list.
	function runs(list, size) {
		const out = [];
		for (let i = 0; i < list.length; i += size)
			out.push(list.slice(i, i + size));
		return out;
	}

	function addUnit(m, kind, label, members) {
		const u = { id: m.units.length, kind, label, members, level: Infinity, cas: 0, root: false };
		for (const s of members) {
			m.unitOf[s] = u.id;
			u.level = Math.min(u.level, m.sw[s].level || 0);
			u.cas += m.sw[s].cas;
		}
		m.units.push(u);
		return u;
	}

	// Pods as the API numbers them; joined in runs when there are too many.
	function treePods(m) {
		const pods = new Map();
		m.sw.forEach((s, i) => {
			if (s.pod !== null && s.pod !== undefined)
				push(pods, s.pod, i);
		});
		const keys = [...pods.keys()].sort((a, b) => a - b);
		const size = Math.ceil(keys.length / MAX_UNITS);
		for (const run of runs(keys, size)) {
			const members = run.flatMap(k => pods.get(k));
			const label = run.length === 1 ? (members.length === 1 ? m.sw[members[0]].node : `pod ${run[0]}`) :
				`pods ${run[0]}–${run[run.length - 1]}`;
			addUnit(m, "pod", label, members);
		}
	}

	// A top switch's plane: the lowest position, within its pod and level,
	// of the switches it links to.
	function planeOf(m, s, rank) {
		let best = Infinity;
		for (const l of m.adj[s]) {
			const o = m.links[l].a === s ? m.links[l].b : m.links[l].a;
			if (rank[o] !== undefined)
				best = Math.min(best, rank[o]);
		}
		return best;
	}

	// Top switches by plane; ranks within a pod and level follow the names,
	// so that a downed switch (a ghost, last in the list) keeps its place.
	function treeSpines(m, top) {
		const rank = [], same = new Map();
		m.sw.forEach((s, i) => s.pod !== null && s.pod !== undefined && push(same, `${s.pod}/${s.level}`, i));
		for (const ids of same.values())
			ids.sort((a, b) => byName(m.sw[a].node, m.sw[b].node)).forEach((i, k) => (rank[i] = k));
		const planes = new Map();
		top.forEach(i => push(planes, planeOf(m, i, rank), i));
		const keys = [...planes.keys()].sort((a, b) => a - b);
		if (keys.length > 1 && keys.length <= MAX_UNITS && keys.every(k => k !== Infinity)) {
			for (const k of keys)
				addUnit(m, "spine", `spine group ${k}`, planes.get(k));
			return;
		}
		const size = Math.ceil(top.length / Math.min(24, Math.max(1, Math.ceil(top.length / 8))));
		for (const run of runs(top, size))
			addUnit(m, "spine", run.length === 1 ? m.sw[run[0]].node :
				`${m.sw[run[0]].node} … ${m.sw[run[run.length - 1]].node}`, run);
	}

	function groupUnits(m, key) {
		const groups = new Map();
		m.sw.forEach((s, i) => push(groups, key(s, i) ?? -1, i));
		for (const g of [...groups.keys()].sort((a, b) => a - b))
			addUnit(m, "group", g < 0 ? "no group" : `group ${g}`, groups.get(g));
	}

	// Switches in cliques grown greedily, as fabric/shape.c finds dragonfly
	// groups, but whatever their sizes: a dragonfly that lost a switch or a
	// link still shows its groups. Downed switches join the clique most of
	// their neighbours are in. Null when the cliques are too small or too many.
	function cliques(m) {
		const n = m.sw.length, nb = m.sw.map(() => new Set()), clique = new Int32Array(n).fill(-1);
		for (const l of m.links)
			if (!l.down && l.a !== l.b) {
				nb[l.a].add(l.b);
				nb[l.b].add(l.a);
			}
		let k = 0;
		for (let v = 0; v < n; v++) {
			if (clique[v] >= 0 || m.sw[v].down)
				continue;
			const members = [v], common = u => [...nb[u]].filter(x => nb[v].has(x)).length;
			clique[v] = k;
			const cand = [...nb[v]].filter(u => clique[u] < 0).map(u => [u, common(u)])
				.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
			for (const [u] of cand)
				if (members.every(x => nb[u].has(x))) {
					clique[u] = k;
					members.push(u);
				}
			k++;
		}
		const live = m.sw.filter(s => !s.down).length;
		if (k < 3 || k > MAX_UNITS || live / k < 3)
			return null;
		m.sw.forEach((s, i) => {
			if (!s.down)
				return;
			const votes = new Map();
			for (const id of m.adj[i]) {
				const o = clique[m.links[id].a === i ? m.links[id].b : m.links[id].a];
				if (o >= 0)
					votes.set(o, (votes.get(o) || 0) + 1);
			}
			clique[i] = [...votes].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? -1;
		});
		return clique;
	}

	function units(m) {
		const n = m.sw.length, t = m.t;
		m.unitOf = new Int32Array(n).fill(-1);
		m.units = [];
		if (!m.aggregated) {
			addUnit(m, "all", "fabric", m.sw.map((s, i) => i));
			return;
		}
		if (t.kind === "dragonfly") {
			groupUnits(m, s => s.group);
		} else if (t.kind === "tree" && t.pods > 0) {
			treePods(m);
			const top = [];
			m.sw.forEach((s, i) => m.unitOf[i] < 0 && s.level === t.levels && top.push(i));
			if (top.length)
				treeSpines(m, top);
		} else {
			const c = cliques(m);
			if (c)
				groupUnits(m, (s, i) => c[i] < 0 ? null : c[i]);
		}
		const rest = [];
		m.unitOf.forEach((u, i) => u < 0 && rest.push(i));
		if (rest.length)
			for (const run of runs(rest, Math.max(8, Math.ceil(rest.length / 32))))
				addUnit(m, "run", `${m.sw[run[0]].node} … ${m.sw[run[run.length - 1]].node}`, run);
	}

	function addLink(m, a, b, info) {
		const id = m.links.length;
		m.links.push({ a, b, ...info });
		m.adj[a].push(id);
		m.adj[b].push(id);
	}

	// Downed switches as ghosts (level from the fabric as cabled) and downed links.
	function ghosts(m, down) {
		const byGuid = m.index;
		for (const d of down.switches || []) {
			if (byGuid.has(d.guid))
				continue;
			byGuid.set(d.guid, m.sw.length);
			m.sw.push({ node: d.node, guid: d.guid, lid: d.lid, level: d.level, group: null, pod: null,
				cas: d.cas, down: true, peers: d.peers });
			m.adj.push([]);
		}
		const seen = new Set();
		const dead = (a, b, pa, pb) => {
			const key = a < b ? `${a}:${pa}-${b}:${pb}` : `${b}:${pb}-${a}:${pa}`;
			if (a === undefined || b === undefined || seen.has(key))
				return;
			seen.add(key);
			addLink(m, a, b, { pa, pb, all: 0, ca: 0, down: true });
		};
		for (const d of down.links || [])
			dead(byGuid.get(d.a.guid), byGuid.get(d.b.guid), d.a.port, d.b.port);
		m.sw.forEach((s, i) => {
			for (const p of s.down ? s.peers : [])
				dead(i, byGuid.get(p.guid), null, p.port);
		});
	}

	// A ghost's pod or group: the one most of its neighbours below it (any, at the top) share.
	function placeGhosts(m) {
		m.sw.forEach((s, i) => {
			if (!s.down)
				return;
			const votes = new Map();
			for (const l of m.adj[i]) {
				const o = m.sw[m.links[l].a === i ? m.links[l].b : m.links[l].a];
				const key = m.t.kind === "dragonfly" ? o.group : o.level < s.level ? o.pod : null;
				if (key !== null && key !== undefined && !o.down)
					votes.set(key, (votes.get(key) || 0) + 1);
			}
			let best = null, n = 0;
			for (const [k, v] of votes)
				if (v > n)
					[best, n] = [k, v];
			if (m.t.kind === "dragonfly")
				s.group = best;
			else if (s.level < m.t.levels)
				s.pod = best;
		});
	}

	function bundles(m) {
		const map = new Map();
		m.inner = m.units.map(() => ({ links: 0, ca: 0, all: 0, down: 0 }));
		m.links.forEach(l => {
			const u = Math.min(m.unitOf[l.a], m.unitOf[l.b]), v = Math.max(m.unitOf[l.a], m.unitOf[l.b]);
			let b = m.inner[u];
			if (u !== v) {
				b = map.get(u * 65536 + v);
				if (!b)
					map.set(u * 65536 + v, b = { u, v, links: 0, ca: 0, all: 0, down: 0 });
			}
			b.links++;
			b.down += l.down ? 1 : 0;
			b.ca = Math.max(b.ca, l.ca);
			b.all = Math.max(b.all, l.all);
		});
		m.bundles = [...map.values()];
	}

	// @t: GET /api/topology; @down: GET /api/faults' details (or null).
	function build(t, down) {
		const m = { t, sw: t.switches.slice(), links: [], index: new Map() };
		m.sw.forEach((s, i) => m.index.set(s.guid, i));
		m.adj = m.sw.map(() => []);
		for (const l of t.links) {
			const a = m.index.get(l.a.guid), b = m.index.get(l.b.guid);
			if (a !== undefined && b !== undefined)
				addLink(m, a, b, { pa: l.a.port, pb: l.b.port, raw: l, all: Math.max(l.routes_ab, l.routes_ba),
					ca: Math.max(l.ca_routes_ab || 0, l.ca_routes_ba || 0), down: false });
		}
		ghosts(m, down || {});
		placeGhosts(m);
		m.aggregated = m.sw.length > AGGREGATE_ABOVE;
		units(m);
		bundles(m);
		m.root = t.subtree_root ? m.index.get(t.subtree_root.guid) : undefined;
		if (m.root !== undefined)
			m.units[m.unitOf[m.root]].root = true;
		m.downLinks = m.links.filter(l => l.down).length;
		return m;
	}

	// The sources a link's routes are divided by: CAs - 1, or endpoints - 1.
	function norm(m, mode, fabric) {
		const n = mode === "all" ? fabric.endpoints : fabric.cas;
		return Math.max(1, (n || 2) - 1);
	}

	return { build, colour, scaleCss, norm, push, byName };
})();
