#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the Grafana dashboard and the Prometheus rules against real metrics.

    monitoring_check.py DASHBOARD.json RULES.yml API.md RECORDING_OUT.yml METRICS...

METRICS are /metrics answers of running daemons (file and opensm sources).
Prints "PASS what", "FAIL what: why" or "SKIP what: why" lines, and writes
every dashboard query into RECORDING_OUT.yml as a recording rule (Grafana's
variables replaced) so that `promtool check rules` parses them as PromQL.
Standard library only.
"""
import json
import re
import sys

DASH, RULES, DOC, REC = sys.argv[1:5]
METRICS = sys.argv[5:]
NAME = re.compile(r"\b((?:fabroute|process)_[a-z0-9_]+)\b")


def say(kind, what, why=""):
    print(f"{kind} {what}" + (f": {why}" if why else ""))


def families(paths):
    """Metric families (from # TYPE lines) and every sample name."""
    fam = set()
    for p in paths:
        with open(p, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"# TYPE (\S+) (\S+)", line)
                if m:
                    fam.add(m.group(1))
                    if m.group(2) == "histogram":
                        fam.update(m.group(1) + s for s in ("_bucket", "_sum", "_count"))
    return fam


def check_names(where, exprs, known):
    osm_built = any(n.startswith("fabroute_osm_") for n in known)
    for e in exprs:
        for n in sorted(set(NAME.findall(e))):
            if n in known:
                say("PASS", f"{where}: {n} is a metric fabrouted exports")
            elif n.startswith("fabroute_osm_") and not osm_built:
                say("SKIP", f"{where}: {n}", "the OpenSM plugin's pass metrics are not in this build")
            else:
                say("FAIL", f"{where}: {n} is a metric fabrouted exports", "not in any real /metrics answer")


def overlap(a, b):
    ga, gb = a["gridPos"], b["gridPos"]
    return (ga["x"] < gb["x"] + gb["w"] and gb["x"] < ga["x"] + ga["w"] and
            ga["y"] < gb["y"] + gb["h"] and gb["y"] < ga["y"] + ga["h"])


def dashboard(known):
    with open(DASH, encoding="utf-8") as f:
        d = json.load(f)
    say("PASS" if d.get("title") and d.get("uid") and isinstance(d.get("schemaVersion"), int) else "FAIL",
        "dashboard: title, uid and schemaVersion")
    panels = d.get("panels", [])
    ids = [p.get("id") for p in panels]
    say("PASS" if len(ids) == len(set(ids)) and None not in ids else "FAIL", "dashboard: panel ids unique")
    bad = [p.get("title") for p in panels
           if not {"x", "y", "w", "h"} <= set(p.get("gridPos", {}))
           or p["gridPos"]["x"] + p["gridPos"]["w"] > 24]
    say("PASS" if not bad else "FAIL", "dashboard: every panel placed within 24 columns", ", ".join(map(str, bad)))
    clash = [(a["title"], b["title"]) for i, a in enumerate(panels) for b in panels[i + 1:] if overlap(a, b)]
    say("PASS" if not clash else "FAIL", "dashboard: no two panels overlap", str(clash))
    graphs = [p for p in panels if p.get("type") != "row"]
    empty = [p["title"] for p in graphs if not p.get("targets") or
             not all(t.get("expr") and t.get("refId") for t in p["targets"])]
    say("PASS" if not empty else "FAIL", "dashboard: every panel has queries", ", ".join(empty))
    ds = [p["title"] for p in graphs if p.get("datasource", {}).get("uid") != "${DS_PROMETHEUS}"]
    say("PASS" if not ds else "FAIL", "dashboard: every panel uses the Prometheus chosen on import", ", ".join(ds))
    titles = " | ".join(p.get("title", "") for p in panels).lower()
    for topic in ("ready", "epochs and reroutes", "reroute latency", "unreachable pairs", "link load",
                  "drift", "fallbacks"):
        say("PASS" if topic in titles else "FAIL", f"dashboard: a panel for {topic}")
    exprs = [t["expr"] for p in graphs for t in p.get("targets", [])]
    exprs += [a["expr"] for a in d.get("annotations", {}).get("list", []) if a.get("expr")]
    check_names("dashboard", exprs, known)
    with open(REC, "w", encoding="utf-8") as out:
        out.write("groups:\n  - name: dashboard\n    rules:\n")
        for i, e in enumerate(exprs):
            e = e.replace("$__rate_interval", "5m").replace("$instance", ".*")
            out.write(f"      - record: dashboard:query{i}\n        expr: {json.dumps(e)}\n")


def rules(known):
    with open(RULES, encoding="utf-8") as f:
        text = f.read()
    alerts = re.findall(r"^\s*- alert: (\S+)", text, re.M)
    for a in ("FabrouteNotReady", "FabrouteRerouteFailed", "FabrouteOpenSMFallback", "FabrouteDrift",
              "FabrouteDown", "FabrouteOpenSMDisconnected", "FabrouteStoreFailing", "FabrouteReadbackUnreadable"):
        say("PASS" if a in alerts else "FAIL", f"rules: alert {a}")
    exprs = re.findall(r"^\s*expr: (.+)$", text, re.M)
    say("PASS" if len(exprs) == len(alerts) else "FAIL", "rules: one expression per alert")
    check_names("rules", exprs, known)


def documented(known):
    with open(DOC, encoding="utf-8") as f:
        doc = f.read()
    for n in sorted(known):
        base = re.sub(r"_(bucket|sum|count)$", "", n)
        if base != n and base in known:
            continue
        say("PASS" if f"`{n}" in doc else "FAIL", f"doc/api.md documents {n}")


def main():
    known = families(METRICS)
    say("PASS" if known else "FAIL", f"{len(known)} metric names read from the daemons")
    dashboard(known)
    rules(known)
    documented(known)


if __name__ == "__main__":
    main()
