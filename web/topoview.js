// SPDX-License-Identifier: MIT
// fabroute dashboard: the topology picture, an SVG drawn from the model of
// topo.js. A small fabric is drawn switch by switch: trees by level (the
// top level at the top), dragonflies by group around a circle, anything
// else on one circle. A large one opens on its units (pods and spine
// groups, dragonfly groups) joined by bundles of links; clicking a unit
// opens it: its switches and links one by one, the units it links to as
// boxes. Every link or bundle is coloured by its heat (topo.js), faults
// are drawn red and dashed, the subtree root ringed in gold, the switch or
// host searched for and the route traced marked in blue. Drag to pan,
// ctrl+wheel (or the buttons, or a double click) to zoom.
"use strict";

const TopoView = (() => {
	const W = 1200, LEFT = 70;
	const esc = s => String(s).replace(/[&<>"]/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
	const num = v => Number(v).toLocaleString("en-US");
	const f2 = v => v.toFixed(2);

	// --- a scene: markup in layers, and what each marked element means ---

	function scene(st) {
		return { st, m: st.m, links: [], nodes: [], top: [], items: [], pos: new Map(), upos: new Map(), h: 0 };
	}

	function item(sc, text, click) {
		sc.items.push({ text, click });
		return sc.items.length - 1;
	}

	function heat(sc, x) {
		const load = (sc.st.mode === "all" ? x.all : x.ca) / sc.st.norm;
		return { load, colour: Topo.colour(load, sc.st.mode === "all" ? x.all : x.ca) };
	}

	function loadText(sc, x) {
		const n = sc.st.fabric || {};
		return `CA-to-CA ${num(x.ca)} routes (load ${f2(x.ca / Math.max(1, (n.cas || 2) - 1))}), ` +
			`all pairs ${num(x.all)} (load ${f2(x.all / Math.max(1, (n.endpoints || 2) - 1))})`;
	}

	// A link or bundle from (x1, y1) to (x2, y2): the heat of @x, red dashes over it when some are down.
	function wire(sc, x1, y1, x2, y2, x, width, text, click, plain) {
		const i = item(sc, text, click), h = heat(sc, x), up = x.links - x.down;
		if (up > 0)
			sc.links.push(`<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${h.colour}" ` +
				`stroke-width="${width + (h.load > 1.5 ? 0.8 : 0)}" data-i="${i}" class="ln"/>`);
		if (x.down > 0) {
			sc.top.push(`<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" class="ln down" ` +
				`stroke-width="${Math.max(1.6, width)}" data-i="${i}"/>`);
			if (!plain && (sc.st.unit !== null || !sc.m.aggregated))
				cross(sc, (x1 + x2) / 2, (y1 + y2) / 2);
		}
	}

	function cross(sc, x, y) {
		sc.top.push(`<path d="M${x - 4} ${y - 4}l8 8m0 -8l-8 8" class="cross"/>`);
	}

	function label(sc, x, y, text, cls, anchor) {
		sc.top.push(`<text x="${x}" y="${y}" class="${cls || ""}" text-anchor="${anchor || "middle"}">${esc(text)}</text>`);
	}

	function switchText(sc, s) {
		return `${s.node}  ${s.guid}  LID ${s.lid}  level ${s.level}` +
			(s.group !== null && s.group !== undefined ? `  group ${s.group}` : "") +
			(s.pod !== null && s.pod !== undefined ? `  pod ${s.pod}` : "") +
			`  ${s.cas} CAs` + (s.down ? "  DOWN (fault in force)" : "") +
			(sc.m.sw[sc.m.root] === s ? "  subtree root" : "");
	}

	// One switch as a rectangle centred on (x, y).
	function glyph(sc, idx, x, y, w, h) {
		const s = sc.m.sw[idx], st = sc.st;
		const i = item(sc, switchText(sc, s), () => st.cb.pick(s));
		const cls = "sw" + (s.down ? " down" : s.cas ? " edge" : "");
		sc.pos.set(idx, [x, y]);
		sc.nodes.push(`<rect x="${x - w / 2}" y="${y - h / 2}" width="${w}" height="${h}" rx="2" class="${cls}" ` +
			`data-i="${i}" data-node="${esc(s.node)}"/>`);
		if (s.down)
			cross(sc, x, y);
		if (idx === sc.m.root)
			ring(sc, x - w / 2, y - h / 2, w, h, 3, "root");
		if (st.sel === idx)
			ring(sc, x - w / 2, y - h / 2, w, h, 5, "found");
	}

	// A frame @pad outside the box at (@x, @y): the subtree root's, or the one found.
	function ring(sc, x, y, w, h, pad, cls) {
		sc.top.push(`<rect x="${x - pad}" y="${y - pad}" width="${w + 2 * pad}" height="${h + 2 * pad}" ` +
			`rx="${pad}" class="${cls}"/>`);
	}

	// Links between visible switches, parallel ones joined.
	function pairWires(sc, ids, width) {
		const pairs = new Map(), m = sc.m;
		for (const id of ids) {
			const l = m.links[id], key = Math.min(l.a, l.b) * 1e6 + Math.max(l.a, l.b);
			const p = pairs.get(key) || pairs.set(key, { a: l.a, b: l.b, links: 0, down: 0, ca: 0, all: 0, list: [] }).get(key);
			p.links++;
			p.down += l.down ? 1 : 0;
			p.ca = Math.max(p.ca, l.ca);
			p.all = Math.max(p.all, l.all);
			p.list.push(l);
		}
		for (const p of [...pairs.values()].sort((x, y) => heat(sc, x).load - heat(sc, y).load)) {
			const [x1, y1] = sc.pos.get(p.a), [x2, y2] = sc.pos.get(p.b);
			const text = p.list.map(l => `${m.sw[l.a].node}:${l.pa ?? "?"} ↔ ${m.sw[l.b].node}:${l.pb ?? "?"}` +
				(l.down ? "  DOWN" : "")).join(", ") + ` — ${loadText(sc, p)}`;
			wire(sc, x1, y1, x2, y2, p, width, text, null, m.sw[p.a].down || m.sw[p.b].down);
		}
	}

	// --- a small fabric: every switch ---

	function rowsByLevel(m, members) {
		const rows = new Map();
		for (const i of members)
			Topo.push(rows, m.sw[i].level, i);
		for (const r of rows.values())
			r.sort((a, b) => Topo.byName(m.sw[a].node, m.sw[b].node));
		return [...rows.keys()].sort((a, b) => b - a).map(lv => ({ level: lv, ids: rows.get(lv) }));
	}

	function levelName(m, lv) {
		return lv === 1 ? "leaves" : lv === m.t.levels && m.t.kind === "tree" ? "top" : lv === 0 ? "unplaced" : `level ${lv}`;
	}

	function flatTree(sc) {
		const m = sc.m, rows = rowsByLevel(m, m.units[0].members);
		const rowH = rows.length > 3 ? 90 : rows.length > 2 ? 150 : 200;
		rows.forEach((r, k) => {
			const step = (W - LEFT - 20) / r.ids.length, w = Math.max(3, Math.min(26, step - 3)), y = 24 + k * rowH;
			r.ids.forEach((id, j) => {
				glyph(sc, id, LEFT + step * (j + 0.5), y, w, 12);
				if (sc.st.host && sc.st.host.sw === id)
					host(sc, LEFT + step * (j + 0.5), y - 24);
			});
			label(sc, 4, y + 4, levelName(m, r.level), "", "start");
		});
		sc.h = 24 + (rows.length - 1) * rowH + (sc.st.host ? 70 : 40);
	}

	function flatCircle(sc) {
		const m = sc.m, ids = m.units[0].members.slice();
		const key = i => m.sw[i].group ?? -1;
		ids.sort((a, b) => key(a) - key(b) || Topo.byName(m.sw[a].node, m.sw[b].node));
		const n = ids.length, R = Math.min(330, 40 + n * 4), cx = W / 2, cy = R + 30;
		ids.forEach((id, k) => {
			const a = 2 * Math.PI * k / Math.max(1, n) - Math.PI / 2;
			glyph(sc, id, cx + R * Math.cos(a), cy + R * Math.sin(a), 9, 9);
		});
		sc.h = 2 * R + 60;
	}

	function flat(sc) {
		if (sc.m.t.kind === "tree")
			flatTree(sc);
		else
			flatCircle(sc);
		pairWires(sc, sc.m.links.map((l, i) => i), sc.m.links.length > 2000 ? 0.6 : sc.m.links.length > 400 ? 1 : 2);
	}

	// --- a large fabric: units and bundles ---

	function unitText(sc, u) {
		const m = sc.m, inner = m.inner[u.id], down = u.members.filter(i => m.sw[i].down).length;
		return `${u.label}: ${u.members.length} switches, ${num(u.cas)} CAs` +
			(inner.links ? `; ${num(inner.links)} links inside, busiest: ${loadText(sc, inner)}` : "") +
			(down ? `; ${down} switch(es) DOWN` : "") + (inner.down ? `; ${inner.down} link(s) DOWN` : "") +
			(u.root ? "; holds the subtree root" : "") + " — click to open";
	}

	// A unit as a box; @rows: the levels drawn inside it (trees' pods), each with its switch count.
	function unitBox(sc, u, x, y, w, h, rows) {
		const m = sc.m, st = sc.st, i = item(sc, unitText(sc, u), () => st.open(u.id));
		const down = u.members.some(s => m.sw[s].down) || m.inner[u.id].down > 0;
		sc.upos.set(u.id, [x + w / 2, y + h / 2, x, y, w, h]);
		sc.nodes.push(`<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="3" class="unit${down ? " hurt" : ""}" ` +
			`data-i="${i}" data-unit="${esc(u.label)}"/>`);
		if (rows && rows.length > 1) {
			const c = heat(sc, m.inner[u.id]).colour;
			sc.nodes.push(`<line x1="${x + w / 2}" y1="${y + 10}" x2="${x + w / 2}" y2="${y + h - 10}" stroke="${c}" ` +
				`stroke-width="${Math.min(8, w / 4)}" data-i="${i}"/>`);
		}
		(rows || []).forEach((r, k) => {
			const ry = y + 4 + k * ((h - 8) / rows.length);
			sc.nodes.push(`<rect x="${x + 3}" y="${ry}" width="${w - 6}" height="${Math.min(14, (h - 8) / rows.length - 3)}" ` +
				`rx="2" class="lvl" data-i="${i}"/>`);
			if (w > 22)
				label(sc, x + w / 2, ry + 10, r.n, "cnt");
		});
		if (u.root)
			ring(sc, x, y, w, h, 3, "root");
		if (st.sel !== null && m.unitOf[st.sel] === u.id)
			ring(sc, x, y, w, h, 5, "found");
	}

	function bundleWidth(b) {
		return Math.min(4, 0.7 + Math.log2(b.links) / 2);
	}

	function bundleText(sc, b) {
		const m = sc.m;
		return `${m.units[b.u].label} ↔ ${m.units[b.v].label}: ${num(b.links)} links` +
			(b.down ? `, ${b.down} DOWN` : "") + `; busiest: ${loadText(sc, b)}`;
	}

	function shortLabel(u, w) {
		return w >= u.label.length * 6.2 ? u.label : u.label.replace(/^(pods?|spine group|group) /, "");
	}

	function overviewTree(sc) {
		const m = sc.m, levels = m.t.levels, spines = [], pods = [], rest = [];
		for (const u of m.units)
			(u.kind === "spine" ? spines : u.kind === "pod" ? pods : rest).push(u);
		const rowsIn = levels - 1, podH = 14 + rowsIn * 20, podY = 200;
		const place = (list, y, h, rows) => {
			const step = (W - LEFT - 10) / Math.max(1, list.length), w = Math.max(6, Math.min(110, step - 5));
			list.forEach((u, k) => {
				const x = LEFT + step * k + (step - w) / 2;
				unitBox(sc, u, x, y, w, h, rows && rows(u));
				label(sc, x + w / 2, y + h + 12, shortLabel(u, step), "ulabel");
			});
		};
		const podRows = u => {
			const count = new Map();
			for (const s of u.members)
				count.set(m.sw[s].level, (count.get(m.sw[s].level) || 0) + 1);
			const out = [];
			for (let lv = levels - 1; lv >= 1; lv--)
				out.push({ n: count.get(lv) || 0 });
			return out;
		};
		place(spines, 40, 24, u => [{ n: u.members.length }]);
		place(pods, podY, podH, podRows);
		place(rest, podY + podH + 60, 24);
		label(sc, 4, 56, "spines", "", "start");
		label(sc, 4, podY + 14, "pods", "", "start");
		for (let lv = levels - 1, k = 0; lv >= 1; lv--, k++)
			label(sc, LEFT - 6, podY + 14 + k * ((podH - 8) / rowsIn), levelName(m, lv), "small", "end");
		bundleWires(sc);
		sc.h = podY + podH + (rest.length ? 110 : 40);
	}

	function bundleWires(sc) {
		const m = sc.m;
		const end = (u, other) => {
			const p = sc.upos.get(u), q = sc.upos.get(other);
			return q[1] < p[1] ? [p[0], p[3]] : q[1] > p[1] ? [p[0], p[3] + p[5]] : [p[0], p[1]];
		};
		for (const b of m.bundles.slice().sort((x, y) => heat(sc, x).load - heat(sc, y).load)) {
			if (!sc.upos.has(b.u) || !sc.upos.has(b.v))
				continue;
			const [x1, y1] = end(b.u, b.v), [x2, y2] = end(b.v, b.u);
			wire(sc, x1, y1, x2, y2, b, bundleWidth(b), bundleText(sc, b));
		}
	}

	function overviewCircle(sc) {
		const m = sc.m, n = m.units.length, R = 300, cx = W / 2, cy = R + 50;
		m.units.forEach((u, k) => {
			const a = 2 * Math.PI * k / n - Math.PI / 2, x = cx + R * Math.cos(a), y = cy + R * Math.sin(a);
			const w = Math.max(14, Math.min(60, 1400 / n));
			unitBox(sc, u, x - w / 2, y - 11, w, 22, [{ n: u.members.length }]);
			label(sc, cx + (R + 34) * Math.cos(a), cy + (R + 34) * Math.sin(a) + 4, shortLabel(u, 60), "ulabel");
		});
		bundleWires(sc);
		sc.h = 2 * R + 110;
	}

	// --- one unit open: its switches, the units it links to as boxes ---

	function drill(sc, u) {
		const m = sc.m, mine = new Set(u.members), rows = rowsByLevel(m, u.members);
		const peers = new Map();	// unit -> links from here
		for (const s of u.members)
			for (const id of m.adj[s]) {
				const l = m.links[id], o = m.unitOf[l.a === s ? l.b : l.a];
				if (o !== u.id)
					Topo.push(peers, o, id);
			}
		const tree = m.t.kind === "tree", others = [...peers.keys()].sort((a, b) => a - b);
		const above = tree ? others.filter(o => m.units[o].level > u.level) : others.filter((o, k) => k % 2 === 0);
		const below = others.filter(o => !above.includes(o));
		let y = 30;
		const boxes = (list, last) => {
			const step = (W - LEFT - 10) / Math.max(1, list.length), w = Math.max(6, Math.min(110, step - 5));
			list.forEach((o, k) => {
				const x = LEFT + step * k + (step - w) / 2;
				unitBox(sc, m.units[o], x, y, w, 22, [{ n: m.units[o].members.length }]);
				label(sc, x + w / 2, y + 34, shortLabel(m.units[o], step), "ulabel");
			});
			y += !list.length ? 0 : last ? 50 : 110;
		};
		boxes(above);
		const member = (id, x, yy, step) => {
			const s = m.sw[id];
			glyph(sc, id, x, yy, Math.max(4, Math.min(40, step - 4)), 16);
			if (step >= 30)
				label(sc, x, yy + 20, s.node.length * 5 < step ? s.node : s.node.replace(/^\D+/, ""), "name");
			if (s.cas && step >= 18)
				label(sc, x, yy + 30, `${s.cas} CAs`, "small");
			if (sc.st.host && sc.st.host.sw === id)
				host(sc, x, yy);
		};
		if (tree) {
			for (const r of rows) {
				const step = (W - LEFT - 10) / r.ids.length;
				r.ids.forEach((id, j) => member(id, LEFT + step * (j + 0.5), y, step));
				label(sc, 4, y + 4, levelName(m, r.level), "", "start");
				y += 100;
			}
		} else {
			// a group's switches on an ellipse, so that its local links show
			const ids = rows.flatMap(r => r.ids), n = ids.length, rx = Math.min(480, 30 + n * 22), ry = 26 + Math.min(60, n * 6);
			ids.forEach((id, j) => {
				const a = Math.PI * (2 * j / n - 0.5);
				member(id, W / 2 + rx * Math.cos(a), y + ry + ry * Math.sin(a), Math.max(18, 2 * Math.PI * rx / n));
			});
			y += 2 * ry + 100;
		}
		y += below.length ? 10 : -30;
		boxes(below, true);
		pairWires(sc, [...new Set(u.members.flatMap(s => m.adj[s]))].filter(id => mine.has(m.links[id].a) &&
			mine.has(m.links[id].b)), 1.2);
		for (const [o, ids] of peers) {
			const bySwitch = new Map();
			for (const id of ids) {
				const l = m.links[id], s = mine.has(l.a) ? l.a : l.b;
				const b = bySwitch.get(s) || bySwitch.set(s, { links: 0, down: 0, ca: 0, all: 0 }).get(s);
				b.links++;
				b.down += l.down ? 1 : 0;
				b.ca = Math.max(b.ca, l.ca);
				b.all = Math.max(b.all, l.all);
			}
			const box = sc.upos.get(o);
			for (const [s, b] of bySwitch) {
				const [x, yy] = sc.pos.get(s), ey = box[1] < yy ? box[3] + box[5] : box[3];
				wire(sc, x, yy, box[0], ey, b, bundleWidth(b), `${m.sw[s].node} ↔ ${m.units[o].label}: ` +
					`${b.links} link(s)` + (b.down ? `, ${b.down} DOWN` : "") + `; busiest: ${loadText(sc, b)}`,
				null, m.sw[s].down);
			}
		}
		sc.h = y + 20;
	}

	function host(sc, x, y) {
		const h = sc.st.host;
		sc.top.push(`<circle cx="${x}" cy="${y + 44}" r="4" class="hostdot"/>`);
		label(sc, x, y + 58, `${h.node} (port ${h.port})`, "hostname");
	}

	// The route traced, hop by hop through what is visible: a switch, else the box of its unit;
	// the line breaks where a hop is in neither, and a lone point is not drawn.
	function routeOverlay(sc) {
		const m = sc.m, lines = [[]];
		for (const g of sc.st.route) {
			const i = m.index.get(g), p = i === undefined ? null : sc.pos.get(i) ||
				(sc.upos.get(m.unitOf[i]) || []).slice(0, 2);
			const line = lines[lines.length - 1];
			if (!p || !p.length)
				lines.push([]);
			else if (!line.length || line[line.length - 1].join() !== p.join())
				line.push(p);
		}
		for (const pts of lines.filter(l => l.length > 1)) {
			sc.top.push(`<polyline points="${pts.map(p => p.join(",")).join(" ")}" class="route"/>`);
			for (const p of pts)
				sc.top.push(`<circle cx="${p[0]}" cy="${p[1]}" r="3.5" class="routedot"/>`);
		}
	}

	// --- the view: state, drawing, zoom and pan ---

	function create(box, cb) {
		const st = { m: null, fabric: null, mode: "ca", unit: null, sel: null, host: null, route: [], cb,
			vb: null, full: null, items: [] };

		function draw() {
			const sc = scene(st);
			st.norm = Topo.norm(st.m, st.mode, st.fabric || {});
			if (!st.m.aggregated)
				flat(sc);
			else if (st.unit === null)
				(st.m.t.kind === "tree" && st.m.t.pods ? overviewTree : overviewCircle)(sc);
			else
				drill(sc, st.m.units[st.unit]);
			routeOverlay(sc);
			st.full = { x: 0, y: 0, w: W, h: sc.h };
			if (!st.vb)
				st.vb = { ...st.full };
			st.items = sc.items;
			box.innerHTML = `<svg viewBox="${vbText()}" role="img" aria-label="${esc(caption())}">` +
				`<g>${sc.links.join("")}</g><g>${sc.nodes.join("")}</g><g>${sc.top.join("")}</g></svg>`;
			const crumbs = [{ label: "fabric", unit: null }];
			if (st.unit !== null)
				crumbs.push({ label: st.m.units[st.unit].label, unit: st.unit });
			cb.crumbs(crumbs, st.m.aggregated);
		}

		function caption() {
			const m = st.m;
			return `${m.sw.length} switches, ${m.links.length} switch-to-switch links` +
				(m.aggregated ? `, ${m.units.length} units` : "");
		}

		function vbText() {
			const v = st.vb;
			return `${v.x.toFixed(1)} ${v.y.toFixed(1)} ${v.w.toFixed(1)} ${(v.w * st.full.h / st.full.w).toFixed(1)}`;
		}

		function setVb(v) {
			const minW = st.full.w / 25, maxW = st.full.w * 1.5;
			v.w = Math.max(minW, Math.min(maxW, v.w));
			st.vb = v;
			const svg = box.querySelector("svg");
			if (svg)
				svg.setAttribute("viewBox", vbText());
		}

		// Zoom by @f around the point at fraction (@fx, @fy) of the picture.
		function zoom(f, fx = 0.5, fy = 0.5) {
			const v = st.vb, h = v.w * st.full.h / st.full.w, w = v.w / f;
			setVb({ x: v.x + fx * (v.w - w), y: v.y + fy * (h - w * st.full.h / st.full.w), w });
		}

		let drag = null, moved = false;
		box.addEventListener("pointerdown", e => {
			drag = { x: e.clientX, y: e.clientY, vb: { ...st.vb } };
			moved = false;
		});
		window.addEventListener("pointermove", e => {
			if (!drag)
				return;
			const k = st.vb.w / box.clientWidth, dx = e.clientX - drag.x, dy = e.clientY - drag.y;
			if (Math.abs(dx) + Math.abs(dy) > 4)
				moved = true;
			if (moved)
				setVb({ x: drag.vb.x - dx * k, y: drag.vb.y - dy * k, w: drag.vb.w });
		});
		window.addEventListener("pointerup", () => (drag = null));
		box.addEventListener("click", e => {
			const t = e.target.closest("[data-i]");
			if (!moved && t && st.items[t.dataset.i].click)
				st.items[t.dataset.i].click();
		});
		box.addEventListener("mouseover", e => {
			const t = e.target.closest("[data-i]");
			if (t)
				cb.hover(st.items[t.dataset.i].text);
		});
		box.addEventListener("wheel", e => {
			if (!e.ctrlKey && !e.metaKey)
				return;
			e.preventDefault();
			const r = box.getBoundingClientRect();
			zoom(e.deltaY < 0 ? 1.25 : 0.8, (e.clientX - r.left) / r.width, (e.clientY - r.top) / r.height);
		}, { passive: false });
		box.addEventListener("dblclick", e => {
			const r = box.getBoundingClientRect();
			zoom(2, (e.clientX - r.left) / r.width, (e.clientY - r.top) / r.height);
		});

		st.open = unit => {
			st.unit = unit;
			st.vb = null;
			draw();
		};

		return {
			// A new model (a new epoch or new faults): stay in the unit of that name when there is one.
			show(m, fabric) {
				const name = st.unit !== null && st.m ? st.m.units[st.unit].label : null;
				const sel = st.sel !== null && st.m ? st.m.sw[st.sel].guid : null;
				if (st.m && m.sw.length !== st.m.sw.length)
					st.vb = null;
				st.m = m;
				st.fabric = fabric;
				const u = name === null ? -1 : m.units.findIndex(x => x.label === name);
				st.unit = u < 0 || !m.aggregated ? null : u;
				st.sel = sel === null ? null : m.index.get(sel) ?? null;
				draw();
			},
			mode(mode) {
				st.mode = mode;
				if (st.m)
					draw();
			},
			open: st.open,
			// Mark switch @idx (and @host on it) and open its unit.
			find(idx, host) {
				st.sel = idx;
				st.host = host ? { ...host, sw: idx } : null;
				st.open(st.m.aggregated ? st.m.unitOf[idx] : null);
			},
			route(guids) {
				st.route = guids;
				if (st.m)
					draw();
			},
			zoom: f => zoom(f),
			fit() {
				setVb({ ...st.full });
			},
			get model() {
				return st.m;
			},
		};
	}

	return { create };
})();
