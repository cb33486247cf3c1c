// SPDX-License-Identifier: MIT
// fabroute dashboard: the topology picture, an SVG drawn from GET /api/topology.
// Fat trees are drawn by level (the top level at the top), dragonflies by
// group around a circle, anything else on one circle. Each switch-to-switch
// link is coloured by the routes crossing it under all-to-all traffic (the
// busier of its two directions; parallel links between two switches are
// drawn once, with the busiest of them), from green at the least loaded link
// to red at the busiest.
"use strict";

const Topo = (() => {
	const NS = "http://www.w3.org/2000/svg";
	const W = 1200;

	function el(name, attrs, parent) {
		const e = document.createElementNS(NS, name);
		for (const k in attrs)
			e.setAttribute(k, attrs[k]);
		if (parent)
			parent.appendChild(e);
		return e;
	}

	// The least routes over a link that carries any: the bottom of the colour scale.
	function minRoutes(t) {
		let min = 0;
		for (const l of t.links)
			for (const v of [l.routes_ab, l.routes_ba])
				if (v && (!min || v < min))
					min = v;
		return min;
	}

	// Load in [0, 1] -> green, amber, red; grey when nothing crosses the link.
	function colour(frac, routes) {
		if (!routes)
			return "#c5cad3";
		const stops = [[0, [46, 125, 50]], [0.5, [240, 170, 20]], [1, [198, 40, 40]]];
		let i = 0;
		while (i < stops.length - 2 && frac > stops[i + 1][0])
			i++;
		const [a, ca] = stops[i], [b, cb] = stops[i + 1];
		const t = Math.max(0, Math.min(1, (frac - a) / (b - a)));
		const c = ca.map((v, k) => Math.round(v + (cb[k] - v) * t));
		return `rgb(${c[0]},${c[1]},${c[2]})`;
	}

	function scaleCss() {
		const parts = [];
		for (let i = 0; i <= 10; i++)
			parts.push(colour(i / 10, 1));
		return `linear-gradient(to right, ${parts.join(",")})`;
	}

	// Positions by level: rows from the top level down to the leaves.
	function layoutTree(t) {
		const rows = {};
		t.switches.forEach((s, i) => (rows[s.level] = rows[s.level] || []).push(i));
		const levels = Object.keys(rows).map(Number).sort((a, b) => b - a);
		const rowH = levels.length > 3 ? 90 : 150, top = 24;
		const pos = [], size = [];
		levels.forEach((lv, r) => {
			const ids = rows[lv], step = (W - 90) / ids.length;
			const w = Math.max(3, Math.min(26, step - 3));
			ids.forEach((id, k) => {
				pos[id] = [80 + step * (k + 0.5), top + r * rowH];
				size[id] = w;
			});
		});
		const labels = levels.map((lv, r) => ({ text: lv === 1 ? "leaves" : `level ${lv}`,
			x: 4, y: top + r * rowH + 4 }));
		return { pos, size, height: top + (levels.length - 1) * rowH + 40, labels };
	}

	// Dragonfly: groups around a circle, each group's switches on a small arc facing out.
	function layoutGroups(t) {
		const groups = {};
		t.switches.forEach((s, i) => (groups[s.group === null ? -1 : s.group] =
			groups[s.group === null ? -1 : s.group] || []).push(i));
		const keys = Object.keys(groups).map(Number).sort((a, b) => a - b);
		const R = 300, r = Math.max(18, Math.min(60, 700 / keys.length)), cx = W / 2, cy = R + r + 30;
		const pos = [], size = [], labels = [];
		keys.forEach((g, k) => {
			const a = 2 * Math.PI * k / keys.length - Math.PI / 2;
			const gx = cx + R * Math.cos(a), gy = cy + R * Math.sin(a), ids = groups[g];
			ids.forEach((id, j) => {
				const b = a + (ids.length > 1 ? (j / (ids.length - 1) - 0.5) * 1.6 : 0);
				pos[id] = [gx + r * 0.6 * Math.cos(b + Math.PI), gy + r * 0.6 * Math.sin(b + Math.PI)];
				size[id] = 9;
			});
			labels.push({ text: g < 0 ? "no group" : `group ${g}`, x: gx + (r + 8) * Math.cos(a) - 18,
				y: gy + (r + 8) * Math.sin(a) + 4 });
		});
		return { pos, size, height: 2 * (R + r) + 70, labels };
	}

	function layoutCircle(t) {
		const n = t.switches.length, R = Math.min(330, 40 + n * 4), cx = W / 2, cy = R + 30;
		const pos = [], size = [];
		t.switches.forEach((s, i) => {
			const a = 2 * Math.PI * i / Math.max(1, n) - Math.PI / 2;
			pos[i] = [cx + R * Math.cos(a), cy + R * Math.sin(a)];
			size[i] = 9;
		});
		return { pos, size, height: 2 * R + 60, labels: [] };
	}

	// One entry per switch pair: the busiest direction of the busiest parallel link.
	function pairs(t, index) {
		const m = new Map();
		for (const l of t.links) {
			const a = index.get(l.a.guid), b = index.get(l.b.guid);
			if (a === undefined || b === undefined)
				continue;
			const key = a < b ? `${a}-${b}` : `${b}-${a}`;
			const routes = Math.max(l.routes_ab, l.routes_ba);
			const p = m.get(key);
			if (!p)
				m.set(key, { a, b, routes, links: [l] });
			else {
				p.routes = Math.max(p.routes, routes);
				p.links.push(l);
			}
		}
		return [...m.values()].sort((x, y) => x.routes - y.routes);
	}

	function linkText(p, t) {
		return p.links.map(l => `${l.a.node}:${l.a.port} → ${l.b.node}:${l.b.port}  ${l.routes_ab} routes, ` +
			`back ${l.routes_ba}`).join("\n");
	}

	// Draw @t into @box; @hover(text) is called when the pointer is over a switch or link,
	// @pick(name) when a switch is clicked.
	function draw(box, t, hover, pick) {
		const index = new Map(t.switches.map((s, i) => [s.guid, i]));
		const lay = t.kind === "dragonfly" ? layoutGroups(t) : t.kind === "tree" ? layoutTree(t) : layoutCircle(t);
		const svg = el("svg", { viewBox: `0 0 ${W} ${lay.height}`, role: "img",
			"aria-label": `${t.switches.length} switches, ${t.links.length} switch-to-switch links` });
		const max = t.max_routes || 0, min = minRoutes(t), span = max > min ? max - min : 1, gl = el("g", {}, svg), gs = el("g", {}, svg);
		const strokeW = t.links.length > 2000 ? 0.6 : t.links.length > 400 ? 1 : 2;
		for (const p of pairs(t, index)) {
			const [x1, y1] = lay.pos[p.a], [x2, y2] = lay.pos[p.b];
			const ln = el("line", { x1, y1, x2, y2, class: "ln", stroke: colour((p.routes - min) / span, p.routes),
				"stroke-width": strokeW + ((p.routes - min) / span > 0.8 ? 0.8 : 0), "stroke-opacity": 0.85 }, gl);
			const text = linkText(p, t);
			el("title", {}, ln).textContent = text;
			ln.addEventListener("mouseenter", () => hover(text.split("\n")[0] +
				(p.links.length > 1 ? ` (+${p.links.length - 1} parallel)` : "")));
		}
		t.switches.forEach((s, i) => {
			const [x, y] = lay.pos[i], w = lay.size[i], h = t.kind === "tree" ? 12 : w;
			const r = el("rect", { x: x - w / 2, y: y - h / 2, width: w, height: h, rx: 2, class: "sw",
				fill: s.cas ? "#5b7fc7" : "#8d97a8", "data-node": s.node }, gs);
			const text = `${s.node}  ${s.guid}  LID ${s.lid}  level ${s.level}` +
				(s.group !== null ? `  group ${s.group}` : "") + `  ${s.cas} CAs`;
			el("title", {}, r).textContent = text;
			r.addEventListener("mouseenter", () => hover(text));
			r.addEventListener("click", () => pick(s.node));
		});
		for (const lb of lay.labels)
			el("text", { x: lb.x, y: lb.y }, svg).textContent = lb.text;
		box.replaceChildren(svg);
	}

	return { draw, scaleCss, minRoutes };
})();
