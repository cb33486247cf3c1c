// SPDX-License-Identifier: MIT
// fabroute dashboard: reads fabrouted's REST API (relative URLs, so it works
// behind a path prefix too) and keeps the page live by polling /api/health:
// the epoch-derived panels are fetched again when the epoch changes, events,
// read-back and source state at every poll.
"use strict";

const POLL_MS = 3000;
const $ = id => document.getElementById(id);
const state = { epoch: null, snapshots: [], routeFilled: false, failures: 0 };

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
	set("vls-used", r.vls_used.length ? r.vls_used.join(",") : "none");
	set("max-load", num(r.max_link_load));
	set("timings", `${r.compute_ms.toFixed(1)} · ${r.eval_ms.toFixed(1)} ms`);
	showReadback(f.readback);
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
	set("topo-caption", `${t.kind}, ${num(t.switches.length)} switches, ${num(t.links.length)} switch-to-switch links`);
	set("legend-min", num(Topo.minRoutes(t)));
	set("legend-max", num(t.max_routes));
	$("legend-scale").style.background = Topo.scaleCss();
	Topo.draw($("topology"), t, text => set("topo-hover", text), name => {
		const src = $("route-src"), dst = $("route-dst");
		if (!src.value || (src.value && dst.value))
			[src.value, dst.value] = [name, ""];
		else {
			dst.value = name;
			trace();
		}
	});
	if (!state.routeFilled && t.switches.length > 1) {
		const edge = t.switches.filter(s => s.cas);
		const list = edge.length > 1 ? edge : t.switches;
		$("route-src").value = list[0].node;
		$("route-dst").value = list[list.length - 1].node;
		state.routeFilled = true;
		trace();
	}
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

async function epochPanels() {
	const [ready, conn, vls, topo, snaps] = await Promise.all([get("api/ready"), get("api/connectivity"),
		get("api/vl-usage"), get("api/topology"), get("api/snapshots?limit=50")]);
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
		const h = await get("api/health");
		showHealth(h.body);
		const [f, ev] = await Promise.all([get("api/fabric"), get("api/events?limit=60")]);
		if (f.status === 200)
			showFabric(f.body);
		else
			set("epoch-seq", "none");
		if (ev.status === 200)
			showEvents(ev.body.events);
		await showSource(h.body);
		if (h.body.epoch !== state.epoch) {
			state.epoch = h.body.epoch;
			await epochPanels();
		} else {
			showReady(await get("api/ready"));
		}
		state.failures = 0;
		set("live-text", `live · ${new Date().toLocaleTimeString("en-GB")}`);
		$("live-dot").className = "dot on";
	} catch (e) {
		state.failures++;
		set("live-text", `daemon unreachable (${state.failures})`);
		$("live-dot").className = "dot off";
	}
}

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
