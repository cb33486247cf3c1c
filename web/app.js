// SPDX-License-Identifier: MIT
// fabroute dashboard: reads fabrouted's REST API (relative URLs, so it works
// behind a path prefix too) and keeps the page live by polling /api/health,
// /api/fabric, /api/events and /api/faults: the epoch-derived panels are
// fetched again when the epoch changes. The first poll asks for everything
// at once, so that the page is drawn as soon as the slowest answer is in;
// performance marks "fabroute:topology" (the picture drawn) and
// "fabroute:ready" (every panel filled) time it.
"use strict";

const POLL_MS = 3000;
const $ = id => document.getElementById(id);
const state = { epoch: null, snapshots: [], routeFilled: false, failures: 0, topo: null, fabric: null,
	down: null, downText: null, source: "file" };
let view = null;

// --- helpers -------------------------------------------------------------------

// With read_token_file set, reads need the read token: given once as
// #token=TOKEN in the page's address, or when the daemon first answers 401;
// kept for the tab's session only.
function readToken() {
	const m = location.hash.match(/(?:^#|&)token=([^&]+)/);
	if (m) {
		sessionStorage.setItem("fabroute-token", decodeURIComponent(m[1]));
		history.replaceState(null, "", location.pathname + location.search);
	}
	return sessionStorage.getItem("fabroute-token");
}

async function get(path, text) {
	const headers = { Accept: text ? "text/plain" : "application/json" }, token = readToken();
	if (token)
		headers.Authorization = `Bearer ${token}`;
	const r = await fetch(path, { cache: "no-cache", headers });
	if (r.status === 401 && !state.asked) {
		state.asked = true;
		const t = prompt("fabrouted wants its read token (read_token_file):");
		if (t) {
			sessionStorage.setItem("fabroute-token", t.trim());
			state.asked = false;
			return get(path, text);
		}
	}
	const body = text ? await r.text() : await r.json();
	return { status: r.status, body };
}

function num(v) {
	return v === null || v === undefined ? "–" : Number(v).toLocaleString("en-US");
}

function time(iso) {
	if (!iso)
		return "–";
	const d = new Date(iso), p = n => String(n).padStart(2, "0");
	return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

function duration(s) {
	const d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60);
	return d ? `${d}d ${h}h ${m}m` : h ? `${h}h ${m}m` : m ? `${m}m ${Math.floor(s % 60)}s` : `${s.toFixed(1)} s`;
}

function set(id, text, cls) {
	const e = $(id);
	e.textContent = text;
	if (cls !== undefined)
		e.className = cls;
}

// A table row from cells: strings, or [text, class].
function row(cells) {
	const tr = document.createElement("tr");
	for (const c of cells) {
		const td = document.createElement("td");
		if (Array.isArray(c)) {
			td.textContent = c[0];
			td.className = c[1];
		} else {
			td.textContent = c;
		}
		tr.appendChild(td);
	}
	return tr;
}

function fill(tableId, rows) {
	$(tableId).querySelector("tbody").replaceChildren(...rows);
}

function kv(tableId, pairs) {
	$(tableId).replaceChildren(...pairs.map(([k, v, cls]) => row([k, cls ? [v, cls] : v])));
}

function errorText(r) {
	return r.body && r.body.error ? r.body.error.message : `HTTP ${r.status}`;
}

// --- header, summary, readiness -------------------------------------------------

function showHealth(h) {
	set("version", h.version);
	set("uptime", duration(h.uptime_s));
	set("reroutes", `${num(h.reroutes_ok)} · ${num(h.reroutes_failed)}`);
	showRole(h.ha || { role: "single" });
}

// The node's role with replication (hidden on a single node): MASTER or STANDBY, and why to worry.
function showRole(ha) {
	const b = $("role-badge"), r = ha.replication || {}, lag = r.lag_ms_p99;
	b.hidden = ha.role === "single";
	if (b.hidden)
		return;
	const worry = ha.stale || (ha.warm || {}).diverged || r.config_differs;
	set("role-badge", ha.role.toUpperCase() + (ha.stale ? " · STALE" : ""),
		`badge ${worry ? "bad" : ha.role === "master" ? "ok" : "unknown"}`);
	b.title = [`node ${ha.node}, OpenSM ${ha.sm_state || "not connected"}`,
		ha.role === "master" ? "" : `master: ${(ha.master || {}).node || "none"} ${(ha.master || {}).url || ""}`,
		`replication ${r.state}${r.error ? ` (${r.error})` : ""}` +
		(lag >= 0 ? `, lag p99 ${lag.toFixed(1)} ms` : ""),
		(ha.warm || {}).diverged ? "this copy's digest differs from the master's" : "",
		r.config_differs ? "this node's configuration differs from the routing settings in force" : ""]
		.filter(Boolean).join("\n");
}

function showFabric(f) {
	const e = f.epoch, r = f.routing, sh = f.shape;
	set("epoch-seq", e.seq);
	set("engine", e.engine);
	set("chain", e.chain);
	set("reason", e.reason);
	set("published", time(e.published));
	set("count-switches", num(f.switches));
	set("count-cas", num(f.cas));
	set("count-nodes", num(f.nodes));
	set("count-links", num(f.links));
	set("count-endpoints", num(f.endpoints));
	set("count-lids", `${num(f.lid_top)} · ${f.lmc_max}`);
	$("shape").title = $("shape").textContent = sh.groups ? `dragonfly, ${sh.groups} groups` :
		sh.is_tree ? `tree, ${sh.levels} levels (${sh.per_level.join("/")})` :
		`${sh.levels} levels, ${sh.components} component(s)`;
	set("vls-used", r.vls_used.length ? `${r.vls_used.length} (${vlText(r.vls_used)})` : "none");
	set("max-load", r.ca_max_link_load === null ? "–" : r.ca_max_link_load.toFixed(3));
	set("max-load-sub", r.max_link_load === null ? "not evaluated" :
		`CA-to-CA; all pairs: ${num(r.max_link_load)} routes`);
	$("load-card").title = "CA-to-CA: each host sends 1 in all, spread evenly over the other hosts; the most " +
		"any link carries (1: no link oversubscribed). All pairs: the most endpoint pairs (switches included) " +
		"routed over one switch-to-switch link.";
	state.fabric = f;
	set("timings", `${r.compute_ms.toFixed(1)} · ${r.eval_ms.toFixed(1)} ms`);
	showReadback(f.readback);
}

// [0] -> "VL 0", [0, 1, 2, 5] -> "VLs 0–2, 5"
function vlText(vls) {
	const parts = [];
	for (let i = 0; i < vls.length; i++) {
		let j = i;
		while (j + 1 < vls.length && vls[j + 1] === vls[j] + 1)
			j++;
		parts.push(j > i ? `${vls[i]}–${vls[j]}` : `${vls[i]}`);
		i = j;
	}
	return (vls.length > 1 ? "VLs " : "VL ") + parts.join(", ");
}

function showReady(r) {
	const b = $("ready-badge");
	b.textContent = r.body.ready ? "READY" : "NOT READY";
	b.className = "badge " + (r.body.ready ? "ok" : "bad");
	$("checks").replaceChildren(...Object.entries(r.body.checks).map(([k, v]) => {
		const li = document.createElement("li");
		li.textContent = k.replace(/_/g, " ");
		li.className = v ? "pass" : "fail";
		return li;
	}));
	$("failing").replaceChildren(...r.body.failing.map(t => {
		const d = document.createElement("div");
		d.textContent = t;
		return d;
	}));
}

function showConnectivity(c) {
	fill("conn-table", Object.entries(c.classes).map(([k, v]) => row([[k, "l"], num(v.pairs),
		[num(v.unreachable), v.unreachable ? "bad" : "ok"],
		[Object.entries(v.by_failure).map(([f, n]) => `${f} ${n}`).join(", ") || "–", "l"]])));
}

// --- source, read-back ------------------------------------------------------------

function metric(text, name, labels) {
	const re = new RegExp(`^${name}${labels ? "\\{" + labels + "\\}" : "(\\{[^}]*\\})?"} (\\S+)$`, "m");
	const m = text.match(re);
	return m ? Number(m[m.length - 1]) : null;
}

async function showSource(h) {
	const s = h.source || { type: "file" };
	if (s.type !== "opensm") {
		kv("source", [["source", "file (topology file, simulated faults)"], ["OpenSM", "no OpenSM source", "dim"]]);
		return;
	}
	const rows = [["source", "OpenSM plugin"], ["socket", s.socket],
		["plugin connected", s.route_connections + s.control_connections > 0 ? "yes" : "no",
			s.route_connections + s.control_connections > 0 ? "ok" : "bad"],
		["routing passes answered", num(s.routings)], ["failures", num(s.failures), s.failures ? "warn" : ""]];
	const m = await get("metrics", true).catch(() => null);
	if (m && m.status === 200) {
		const conn = metric(m.body, "fabroute_osm_connected");
		if (conn !== null)
			rows.push(["OpenSM connected (metric)", conn ? "yes" : "no", conn ? "ok" : "bad"]);
		for (const res of ["routed", "fallback", "timeout", "error"]) {
			const v = metric(m.body, "fabroute_osm_passes_total", `result="${res}"`);
			if (v !== null)
				rows.push([`passes: ${res}`, num(v), res !== "routed" && v ? "warn" : ""]);
		}
	}
	kv("source", rows);
}

function showReadback(rb) {
	if (!rb || !rb.enabled) {
		kv("readback", [["read-back", "off (source file: the tables are not in switches)", "dim"]]);
		return;
	}
	if (rb.entries_drifting === undefined) {
		kv("readback", [["read-back", "none completed yet", "dim"]]);
		return;
	}
	kv("readback", [["epoch read back", rb.epoch], ["when", time(new Date(rb.time_ms).toISOString())],
		["switches read", `${num(rb.switches_read)} of ${num(rb.switches)}`],
		["unreadable switches", num(rb.switches_unreadable), rb.switches_unreadable ? "warn" : "ok"],
		["drifting switches", num(rb.switches_drifting), rb.switches_drifting ? "bad" : "ok"],
		["drifting LFT entries", num(rb.entries_drifting), rb.entries_drifting ? "bad" : "ok"],
		...(rb.error ? [["error", rb.error, "bad"]] : [])]);
}

// --- topology, routes, VLs ----------------------------------------------------------

function showTopology(t) {
	state.topo = t;
	state.epoch = t.epoch.seq;
	drawTopology();
	if (!state.routeFilled && t.switches.length > 1) {
		const edge = t.switches.filter(s => s.cas);
		const list = edge.length > 1 ? edge : t.switches;
		$("route-src").value = list[0].node;
		$("route-dst").value = list[list.length - 1].node;
		state.routeFilled = true;
		trace();
	}
}

// The picture from the last topology and faults.
function drawTopology() {
	const t = state.topo, m = Topo.build(t, state.down);
	const units = m.units.map(u => u.kind);
	const pods = units.filter(k => k === "pod").length, spines = units.filter(k => k === "spine").length;
	set("topo-caption", `${t.kind}, ${num(t.switches.length)} switches` +
		(m.aggregated && pods ? ` in ${num(pods)} pod units and ${num(spines)} spine units` : "") +
		(m.aggregated && units.includes("group") ? ` in ${num(units.filter(k => k === "group").length)} groups` : "") +
		`, ${num(t.links.length)} switch-to-switch links` +
		(m.downLinks ? `; faults: ${state.down.switches.length} switch(es) and ${state.down.links.length} ` +
			`link(s) down, ${m.downLinks} link(s) out of service` : ""));
	$("legend-scale").style.background = Topo.scaleCss();
	showLegend();
	showRoot();
	view.show(m, state.fabric || {});
	if (!performance.getEntriesByName("fabroute:topology").length)
		requestAnimationFrame(() => requestAnimationFrame(() => performance.mark("fabroute:topology")));
}

function heatMode() {
	return document.querySelector("input[name=heat]:checked").value;
}

function showLegend() {
	const t = state.topo, f = state.fabric || {}, all = heatMode() === "all";
	const max = all ? t.max_routes : t.max_ca_routes, n = Math.max(1, ((all ? f.endpoints : f.cas) || 2) - 1);
	set("legend-range", `${all ? "all pairs" : "CA-to-CA"}: busiest link ${num(max)} routes / ${num(n)} ` +
		`${all ? "endpoints" : "CAs"} = ${(max / n).toFixed(2)}`);
}

// Say which switch the engine sends the paths between switches through, and what that does to the heat.
function showRoot() {
	const t = state.topo, r = t.subtree_root, box = $("topo-root");
	box.hidden = !r;
	if (r)
		box.textContent = `Subtree root: ${r.node} (LID ${r.lid}). ${t.epoch.engine} sends the paths between ` +
			`switches that have no up/down path through it, so under "all pairs" the links towards it are the ` +
			`busiest (up to ${num(t.max_routes)} routes; the busiest link carries ${num(t.max_ca_routes)} ` +
			`CA-to-CA routes). The hosts' own traffic is not sent through it.`;
}

// --- search ---------------------------------------------------------------------------

const search = { timer: null, seq: 0, hits: [] };

async function runSearch() {
	const q = $("topo-search").value.trim(), ul = $("topo-results"), seq = ++search.seq;
	if (!q) {
		ul.hidden = true;
		return [];
	}
	const r = await get(`api/search?q=${encodeURIComponent(q)}&limit=8`);
	if (seq !== search.seq)
		return search.hits;
	search.hits = r.status === 200 ? r.body.results : [];
	const items = search.hits.map(h => {
		const li = document.createElement("li"), at = h.attached[0];
		li.textContent = `${h.node} · ${h.type} · LID ${h.lid}` + (at ? ` · on ${at.node} port ${at.port}` : "");
		li.addEventListener("mousedown", ev => {
			ev.preventDefault();
			locate(h);
		});
		return li;
	});
	const more = document.createElement("li");
	more.className = "dim";
	more.textContent = r.status !== 200 ? errorText(r) : !r.body.total ? `nothing is named like '${q}'` :
		r.body.total > items.length ? `${num(r.body.total - items.length)} more: type more of the name` : "";
	ul.replaceChildren(...items, ...(more.textContent ? [more] : []));
	ul.hidden = false;
	return search.hits;
}

// Show a search hit: a switch, or a host on the switch it hangs off.
function locate(h) {
	const m = view.model, at = h.attached[0], guid = h.type === "SW" ? h.guid : at && at.guid;
	const idx = guid ? m.index.get(guid) : undefined;
	$("topo-results").hidden = true;
	$("topo-search").value = h.node;
	if (idx === undefined) {
		set("topo-hover", `${h.node}: not in the picture (no switch to show it on)`);
		return;
	}
	view.find(idx, h.type === "SW" ? null : { node: h.node, port: at.port });
	set("topo-hover", h.type === "SW" ? `found ${h.node} (${h.guid}, LID ${h.lid})` :
		`found ${h.node} (${h.guid}, LID ${h.lid}) on ${at.node} port ${at.port}`);
	$("topology-panel").scrollIntoView({ block: "nearest" });
}

// --- faults -------------------------------------------------------------------------------

function showFaults(r) {
	if (r.status !== 200)
		return;
	const d = r.body.details || { links: [], switches: [] }, text = JSON.stringify(d);
	if (text !== state.downText) {
		state.downText = text;
		state.down = d;
		if (state.topo)
			drawTopology();
	}
	const n = d.links.length + d.switches.length, f = state.fabric;
	set("faults-summary", state.source === "opensm" ?
		"Source OpenSM: the fabric reports its own faults; links and switches it no longer sees are in the " +
		"snapshot diff and the events." : !n ? "No fault in force." :
		`${d.switches.length} switch(es) and ${d.links.length} link(s) down` + (f ? `; epoch ${f.epoch.seq} ` +
		(f.routing.connected ? "routes around them: every pair delivered" : "leaves pairs unreachable") : ""),
	state.source !== "opensm" && n ? (f && f.routing.connected ? "warn" : "bad") : "dim");
	const show = guid => {
		const b = document.createElement("button");
		b.type = "button";
		b.className = "small-btn";
		b.textContent = "show";
		b.addEventListener("click", () => {
			const idx = view.model.index.get(guid);
			if (idx !== undefined)
				view.find(idx);
		});
		return b;
	};
	const rows = [...d.switches.map(s => [["switch", "l"], [`${s.node} (level ${s.level}, ${s.peers.length} ` +
		`switch links, ${s.cas} CAs)`, "l"], [s.guid, "l mono"], s.guid]),
		...d.links.map(l => [["link", "l"], [`${l.a.node}:${l.a.port} ↔ ${l.b.node}:${l.b.port}`, "l"],
			[l.fault, "l mono"], l.a.guid])];
	fill("faults-table", rows.map(c => {
		const tr = row(c.slice(0, 3));
		tr.appendChild(document.createElement("td")).appendChild(show(c[3]));
		return tr;
	}));
}

async function trace() {
	const src = $("route-src").value.trim(), dst = $("route-dst").value.trim();
	if (!src || !dst)
		return;
	const r = await get(`api/route?src=${encodeURIComponent(src)}&dst=${encodeURIComponent(dst)}`);
	if (r.status !== 200) {
		set("route-summary", errorText(r), "bad");
		fill("route-table", []);
		return;
	}
	const b = r.body;
	set("route-summary", `${b.src.node} (LID ${b.src.lid}) → ${b.dst.node} (LID ${b.dst.lid}): DLID ${b.dlid}, ` +
		`SL ${b.sl}, ${b.hop_count} switch(es), ${b.delivered ? "delivered" : "NOT delivered: " + b.failure}`,
		b.delivered ? "" : "bad");
	fill("route-table", b.hops.map((h, i) => row([i + 1, [h.node, "l"], [h.guid, "l"], h.in_port,
		h.out_port === 255 ? ["none", "bad"] : h.out_port, h.vl])));
	view.route(b.hops.map(h => h.guid));
}

function showVls(v) {
	set("vl-verdict", v.deadlock_free ? "Deadlock-free: every VL's channel dependency graph is acyclic." :
		"Possible deadlock: a channel dependency graph has a cycle.", v.deadlock_free ? "ok" : "bad");
	fill("vl-table", v.vls.map(x => row([x.vl, num(x.paths), num(x.channels), num(x.dependencies),
		x.acyclic ? ["acyclic", "ok l"] :
			[`cycle: ${(x.cycle || []).map(c => `${c.node}:${c.port}`).join(" → ")}`, "bad l"]])));
}

// --- epochs, events, diff -------------------------------------------------------------

function showSnapshots(list) {
	state.snapshots = list;
	fill("snap-table", list.slice(0, 12).map(s => row([s.id, s.seq, [time(s.time), "l"],
		[s.engine, "l"], [s.reason, "l"]])));
	for (const [sel, pick] of [["diff-a", 1], ["diff-b", 0]]) {
		const e = $(sel), old = e.value;
		e.replaceChildren(...list.map(s => {
			const o = document.createElement("option");
			o.value = s.id;
			o.textContent = `#${s.id} (epoch ${s.seq}, ${s.engine})`;
			return o;
		}));
		e.value = old && list.some(s => String(s.id) === old) ? old :
			String((list[Math.min(pick, list.length - 1)] || {}).id || "");
	}
}

async function diff() {
	const a = $("diff-a").value, b = $("diff-b").value;
	if (!a || !b)
		return;
	const r = await get(`api/snapshots/${a}/diff/${b}`);
	if (r.status !== 200) {
		set("diff-out", errorText(r), "bad");
		return;
	}
	const d = r.body, out = $("diff-out");
	const lines = [`#${d.from} → #${d.to}: topology ${d.topology_changed ? "changed" : "unchanged"}`,
		`links removed ${d.links.removed_total}, added ${d.links.added_total}`,
		...d.links.removed.map(l => `  − ${l}`), ...d.links.added.map(l => `  + ${l}`),
		`LIDs changed ${d.lids.changed_total}`,
		`LFT entries changed ${num(d.lft.entries_changed)} on ${num(d.lft.switches_changed)} switch(es)`,
		...d.lft.switches.slice(0, 8).map(s => `  ${s.node}: ${s.entries} entries`)];
	out.className = "";
	out.replaceChildren(...lines.map(t => {
		const div = document.createElement("div");
		div.textContent = t;
		return div;
	}));
}

function showEvents(list) {
	fill("event-table", list.slice().reverse().map(e => {
		const tr = row([time(e.time), "", e.message]), tag = document.createElement("span");
		tag.className = "tag " + e.type;
		tag.textContent = e.type;
		tr.children[1].appendChild(tag);
		return tr;
	}));
}

// --- the refresh loop ------------------------------------------------------------------

function epochFetch() {
	return Promise.all([get("api/ready"), get("api/connectivity"), get("api/vl-usage"), get("api/topology"),
		get("api/snapshots?limit=50")]);
}

async function showEpoch([ready, conn, vls, topo, snaps]) {
	showReady(ready);
	if (conn.status === 200)
		showConnectivity(conn.body);
	if (vls.status === 200)
		showVls(vls.body);
	if (topo.status === 200)
		showTopology(topo.body);
	if (snaps.status === 200) {
		showSnapshots(snaps.body.snapshots);
		if (snaps.body.snapshots.length > 1)
			await diff();
	}
}

async function refresh() {
	try {
		const ahead = state.epoch === null ? epochFetch() : null;
		const [h, f, ev, faults] = await Promise.all([get("api/health"), get("api/fabric"),
			get("api/events?limit=60"), get("api/faults")]);
		showHealth(h.body);
		state.source = (h.body.source || {}).type || "file";
		if (f.status === 200)
			showFabric(f.body);
		else
			set("epoch-seq", "none");
		if (ev.status === 200)
			showEvents(ev.body.events);
		showFaults(faults);
		if (ahead || h.body.epoch !== state.epoch)
			await showEpoch(await (ahead || epochFetch()));
		else
			showReady(await get("api/ready"));
		await showSource(h.body);
		state.failures = 0;
		set("live-text", `live · ${new Date().toLocaleTimeString("en-GB")}`);
		$("live-dot").className = "dot on";
		if (!performance.getEntriesByName("fabroute:ready").length)
			performance.mark("fabroute:ready");
	} catch (e) {
		state.failures++;
		set("live-text", `daemon unreachable (${state.failures})`);
		$("live-dot").className = "dot off";
	}
}

// A switch clicked in the picture: the source of the next route, then its destination.
function pick(s) {
	const src = $("route-src"), dst = $("route-dst");
	if (s.down)
		return;
	if (!src.value || (src.value && dst.value))
		[src.value, dst.value] = [s.node, ""];
	else {
		dst.value = s.node;
		trace();
	}
}

function crumbs(list, aggregated) {
	$("topo-crumbs").replaceChildren(...list.flatMap((c, k) => {
		const b = document.createElement("button");
		b.type = "button";
		b.className = "crumb";
		b.textContent = k === 0 && !aggregated ? "every switch" : c.label;
		b.disabled = k === list.length - 1;
		b.addEventListener("click", () => view.open(c.unit));
		return k ? [Object.assign(document.createElement("span"), { textContent: "›" }), b] : [b];
	}));
}

view = TopoView.create($("topology"), { hover: text => set("topo-hover", text), pick, crumbs });
for (const r of document.querySelectorAll("input[name=heat]"))
	r.addEventListener("change", () => {
		view.mode(heatMode());
		showLegend();
	});
$("zoom-in").addEventListener("click", () => view.zoom(1.5));
$("zoom-out").addEventListener("click", () => view.zoom(1 / 1.5));
$("zoom-fit").addEventListener("click", () => view.fit());
$("topo-search").addEventListener("input", () => {
	clearTimeout(search.timer);
	search.timer = setTimeout(runSearch, 150);
});
$("topo-search").addEventListener("keydown", ev => {
	if (ev.key === "Escape")
		$("topo-results").hidden = true;
});
$("topo-search").addEventListener("blur", () => setTimeout(() => ($("topo-results").hidden = true), 150));
$("topo-find").addEventListener("submit", async ev => {
	ev.preventDefault();
	clearTimeout(search.timer);
	const hits = await runSearch();
	if (hits.length)
		locate(hits[0]);
});
$("route-form").addEventListener("submit", ev => {
	ev.preventDefault();
	trace();
});
$("diff-form").addEventListener("submit", ev => {
	ev.preventDefault();
	diff();
});

refresh();
setInterval(refresh, POLL_MS);
