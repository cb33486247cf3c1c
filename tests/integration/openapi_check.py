#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check doc/openapi.json against a running fabrouted (standard library only).

    openapi_check.py BASE_URL OPENAPI_FILE TOKEN

Prints one line per check, "PASS what" or "FAIL what: why" (the shell test
turns them into TAP):
  - the daemon serves the same document as the file, and it is well formed
    OpenAPI 3.0 (every $ref resolves, operation ids are unique);
  - the documented operations are exactly the daemon's routes (GET /api);
  - every documented GET, called with its parameters' examples, answers a
    documented status with the documented content type, and its JSON body
    validates against the schema; HEAD answers the same status, no body;
  - the other shapes too: errors, the one-pair reachability, the text
    answers (topology.conf, a hosts fragment), the POSTs (what-if, reroute,
    engine, fault), a snapshot diff after a fault.

The schema check covers the JSON Schema subset the document uses: $ref,
allOf, oneOf, type, nullable, enum, required, properties,
additionalProperties, items, minimum, maximum, pattern, format date-time.
"""
import json
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

BASE, FILE, TOKEN = sys.argv[1], sys.argv[2], sys.argv[3]
failures = 0


def report(ok, what, why=""):
    global failures
    if ok:
        print(f"PASS {what}")
    else:
        failures += 1
        print(f"FAIL {what}: {why}")
    sys.stdout.flush()


def request(method, path, body=None, token=None):
    headers = {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = "Bearer " + token
    req = urllib.request.Request(BASE + path, data=data, method=method, headers=headers)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(req, timeout=30) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read()


class Doc:
    def __init__(self, doc):
        self.doc = doc

    def resolve(self, schema):
        while "$ref" in schema:
            ref = schema["$ref"]
            if not ref.startswith("#/"):
                raise ValueError(f"external $ref {ref}")
            node = self.doc
            for part in ref[2:].split("/"):
                node = node[part]
            schema = node
        return schema

    def errors(self, schema, v, where="$"):
        """The first mismatch of value v against schema, or None."""
        s = self.resolve(schema)
        if v is None:
            return None if s.get("nullable") or not s else f"{where}: null is not allowed"
        for sub in s.get("allOf", []):
            e = self.errors(sub, v, where)
            if e:
                return e
        if "oneOf" in s:
            errs = [self.errors(sub, v, where) for sub in s["oneOf"]]
            n = sum(e is None for e in errs)
            if n != 1:
                return f"{where}: matches {n} of oneOf ({'; '.join(e for e in errs if e)})"
        t = s.get("type")
        kinds = {"object": dict, "array": list, "string": str, "boolean": bool}
        if t in kinds and not isinstance(v, kinds[t]):
            return f"{where}: expected {t}, found {type(v).__name__}"
        if t == "integer" and (isinstance(v, bool) or not isinstance(v, int)):
            return f"{where}: expected integer, found {v!r}"
        if t == "number" and (isinstance(v, bool) or not isinstance(v, (int, float))):
            return f"{where}: expected number, found {v!r}"
        if "enum" in s and v not in s["enum"]:
            return f"{where}: {v!r} not in {s['enum']}"
        if "minimum" in s and v < s["minimum"]:
            return f"{where}: {v} below {s['minimum']}"
        if "maximum" in s and v > s["maximum"]:
            return f"{where}: {v} above {s['maximum']}"
        if "pattern" in s and not re.search(s["pattern"], v):
            return f"{where}: {v!r} does not match {s['pattern']}"
        if s.get("format") == "date-time" and not re.match(
                r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$", v):
            return f"{where}: {v!r} is not a date-time"
        if isinstance(v, dict):
            props = s.get("properties", {})
            for k in s.get("required", []):
                if k not in v:
                    return f"{where}: member '{k}' missing"
            extra = s.get("additionalProperties", True)
            for k, x in v.items():
                if k in props:
                    e = self.errors(props[k], x, f"{where}.{k}")
                elif extra is False:
                    e = f"{where}: member '{k}' is not documented"
                elif isinstance(extra, dict):
                    e = self.errors(extra, x, f"{where}.{k}")
                else:
                    e = None
                if e:
                    return e
        if isinstance(v, list) and "items" in s:
            for i, x in enumerate(v):
                e = self.errors(s["items"], x, f"{where}[{i}]")
                if e:
                    return e
        return None

    def refs(self, node, where="#"):
        """Every $ref that does not resolve."""
        bad = []
        if isinstance(node, dict):
            for k, x in node.items():
                if k == "$ref":
                    try:
                        self.resolve(node)
                    except (KeyError, ValueError):
                        bad.append(x)
                else:
                    bad += self.refs(x, f"{where}/{k}")
        elif isinstance(node, list):
            for x in node:
                bad += self.refs(x, where)
        return bad


def check_answer(d, op, what, status, ctype, body):
    responses = op["responses"]
    r = responses.get(str(status)) or responses.get(f"{str(status)[0]}XX") or responses.get("default")
    if r is None:
        report(False, what, f"status {status} is not documented")
        return None
    r = d.resolve(r)
    content = r.get("content", {})
    media = ctype.split(";")[0].strip()
    if media not in content:
        report(False, what, f"content type {ctype!r} not documented ({list(content)})")
        return None
    if media != "application/json":
        report(len(body) > 0, what, "empty body")
        return None
    try:
        value = json.loads(body)
    except ValueError as e:
        report(False, what, f"not JSON: {e}")
        return None
    err = d.errors(content[media]["schema"], value)
    report(err is None, what, err or "")
    return value


def url_of(path, params):
    for p in params:
        if p["in"] == "path":
            path = path.replace("{" + p["name"] + "}", urllib.parse.quote(str(p["example"]), safe=""))
    query = {p["name"]: p["example"] for p in params if p["in"] == "query" and p.get("required")}
    return path + ("?" + urllib.parse.urlencode(query) if query else "")


TYPES = {"string", "number", "integer", "boolean", "array", "object"}


def schema_rules(node, where="#"):
    """Where a schema object breaks OpenAPI 3.0's rules for required, enum and type."""
    bad = []
    if isinstance(node, dict):
        req = node.get("required")
        if isinstance(req, list) and (not req or len(set(req)) != len(req)):
            bad.append(f"{where}/required: {req}")
        enum = node.get("enum")
        if isinstance(enum, list) and not enum:
            bad.append(f"{where}/enum: empty")
        if isinstance(node.get("type"), str) and node["type"] not in TYPES:
            bad.append(f"{where}/type: {node['type']}")
        for k, v in node.items():
            if k not in ("example", "examples", "securitySchemes"):
                bad += schema_rules(v, f"{where}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            bad += schema_rules(v, f"{where}/{i}")
    return bad


def main():
    with open(FILE, encoding="utf-8") as f:
        doc = json.load(f)
    d = Doc(doc)
    st, ct, body = request("GET", "/api/openapi.json")
    report(st == 200 and json.loads(body) == doc, "the daemon serves doc/openapi.json as it is")
    report(str(doc.get("openapi", "")).startswith("3.0."), "the document is OpenAPI 3.0")
    report(all(k in doc.get("info", {}) for k in ("title", "version")), "info has a title and a version")
    bad = d.refs(doc)
    report(not bad, "every $ref resolves", ", ".join(bad))
    bad = schema_rules(doc)
    report(not bad, "schema objects keep OpenAPI 3.0's rules (required and enum not empty, "
           "unique; a known type)", ", ".join(bad))
    ops = [(m.upper(), p, op) for p, item in doc["paths"].items() for m, op in item.items()]
    ids = [op.get("operationId") for _, _, op in ops]
    report(len(ids) == len(set(ids)) and None not in ids, "operation ids are present and unique")
    report(all(op.get("responses") for _, _, op in ops), "every operation documents its responses")

    st, _, body = request("GET", "/api")
    routes = {(e["method"], e["path"]) for e in json.loads(body)["endpoints"]}
    documented = {(m, re.sub(r"\{[^}]+\}", "{}", p)) for m, p, _ in ops}
    report(routes == documented, "the documented operations are the daemon's routes",
           f"undocumented {sorted(routes - documented)}, not served {sorted(documented - routes)}")

    by_id = {op["operationId"]: (m, p, op) for m, p, op in ops}
    for m, p, op in ops:
        if m != "GET":
            continue
        url = url_of(p, op.get("parameters", []))
        st, ct, body = request("GET", url)
        check_answer(d, op, f"GET {url}: {st} as documented", st, ct, body)
        hst, _, hbody = request("HEAD", url)
        report(hst == st and hbody == b"", f"HEAD {url}: {st}, no body", f"{hst}, {len(hbody)} bytes")

    def call(opid, what, method="GET", url=None, body=None, token=None, want=None):
        m, p, op = by_id[opid]
        st, ct, raw = request(method, url or p, body, token)
        if want is not None and st != want:
            report(False, what, f"status {st}, want {want}: {raw[:200]!r}")
            return None
        return check_answer(d, op, what, st, ct, raw)

    call("route", "route error: 404 Error", url="/api/route?src=leaf-00&dst=no-such-node", want=404)
    call("route", "route error: 400 Error", url="/api/route?src=leaf-00", want=400)
    call("reachabilitySwitches", "reachability of one pair",
         url="/api/reachability/switches?src=leaf-00&dst=spine-01", want=200)
    call("nodes", "nodes of one type", url="/api/nodes?type=ca", want=200)
    call("node", "a CA node", url="/api/nodes/node-00", want=200)
    call("events", "events of one type", url="/api/events?type=reroute&limit=5", want=200)
    call("topology", "Slurm's topology.conf: text", url="/api/topology?format=slurm-tree", want=200)
    call("topology", "topology, an unknown format: 400 Error", url="/api/topology?format=dot", want=400)
    call("hosts", "hosts as a shell fragment: text", url="/api/hosts?format=env", want=200)
    call("host", "an unknown host: 404 Error", url="/api/hosts/no-such-host", want=404)
    call("whatif", "POST /api/whatif without a token: 401 Error", "POST", body={"links": ["leaf-00:3"]},
         want=401)
    call("whatif", "POST /api/whatif: 200", "POST", body={"links": ["leaf-00:3"], "switches": ["spine-01"]},
         token=TOKEN, want=200)
    call("whatif", "POST /api/whatif, an unknown switch: 400 Error", "POST",
         body={"switches": ["no-such-switch"]}, token=TOKEN, want=400)
    call("reroute", "POST /api/reroute without a token: 401 Error", "POST", body={}, want=401)
    call("reroute", "POST /api/reroute: 202", "POST", body={}, token=TOKEN, want=202)
    call("selectEngine", "POST /api/engine, unknown engine: 400 Error", "POST",
         body={"chain": "warp-drive"}, token=TOKEN, want=400)
    st, _, raw = request("GET", "/api/health")
    before = json.loads(raw)["epoch"]
    call("fault", "POST /api/faults: 202", "POST", body={"action": "down", "switch": "spine-00"},
         token=TOKEN, want=202)
    for _ in range(600):
        st, _, raw = request("GET", "/api/health")
        h = json.loads(raw)
        if h["epoch"] > before and not h["reroute_in_progress"]:
            break
        time.sleep(0.05)
    call("ready", "GET /api/ready after a fault", url="/api/ready")
    st, _, raw = request("GET", "/api/snapshots")
    snaps = [x["id"] for x in json.loads(raw)["snapshots"]]
    call("snapshotDiff", "a diff between the first and the last snapshot",
         url=f"/api/snapshots/{min(snaps)}/diff/{max(snaps)}", want=200)
    call("faults", "the faults in force", url="/api/faults", want=200)
    call("selectEngine", "POST /api/engine: 202", "POST", body={"chain": "minhop"}, token=TOKEN, want=202)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
