#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Random HTTP requests against a running fabrouted (tests/integration/fuzz_http.sh).

Two workers send requests over keep-alive http.client connections for
--seconds: random methods, the paths of the route table (api/handlers.c)
with random and mutated segments, random query parameters (random bytes
percent-encoded, values up to 10 KB, repeated, empty, mixed with real LIDs,
GUIDs and descriptions read from the daemon), random bodies (JSON objects
for /api/faults and /api/engine, invalid JSON, binary, up to 100 KB), with
the bearer token, a wrong one or none. A third thread sends malformed
requests over raw sockets (bad request lines, no Host, truncated headers,
bad chunked bodies, oversized headers). A fourth asks GET /api/health every
0.2 s, on a connection of its own.

Valid requests that reroute (a fault that names a real link or switch, an
engine chain, POST /api/reroute) are held to about one a second, so that
reroutes happen without dominating.

What must hold:
  alive      GET /api/health answers 200 throughout, and at the end;
  no5xx      no status >= 500 but 503 from /api/ready ({"ready": false}) or
             with code not_routed;
  wellformed every answer is JSON (Prometheus text for GET /metrics 200, the
             dashboard's files for GET / and its other files),
             every 4xx is {"error": {"code": "...", "message": "..."}}, 405
             has Allow, 401 has WWW-Authenticate;
  answered   every request http.client can send gets an answer (no reset,
             no timeout).
Answers libmicrohttpd gives itself are counted, not judged: to malformed
raw requests (HTML, any status; a JSON answer there is judged as above), and
413/414/431 to requests whose line and headers exceed its 64 KB connection
memory.

The results go to --results as lines "check NAME 0|1 DESCRIPTION" and
"diag TEXT", for the shell test to turn into TAP.
"""
import argparse
import collections
import http.client
import json
import random
import re
import socket
import sys
import threading
import time
import urllib.parse

ROUTES = [  # (method, pattern, parameters) as in api/handlers.c
    ("GET", "/api/route", ["src", "dst"]), ("GET", "/api/connectivity", []),
    ("GET", "/api/reachability/switches", ["src", "dst"]), ("GET", "/api/vl-usage", []),
    ("GET", "/api/fabric", []), ("GET", "/api/nodes", ["type"]), ("GET", "/api/nodes/{}", []),
    ("GET", "/api/links", []), ("GET", "/api/lids", []), ("GET", "/api/engines", []),
    ("GET", "/api/config", []), ("GET", "/api/events", ["since", "type", "limit"]),
    ("GET", "/api/snapshots", ["limit"]), ("GET", "/api/snapshots/{}", []),
    ("GET", "/api/snapshots/{}/diff/{}", []), ("GET", "/api/faults", []), ("POST", "/api/engine", []),
    ("POST", "/api/reroute", []), ("POST", "/api/faults", []), ("GET", "/api/ready", []),
    ("GET", "/api/health", []), ("GET", "/metrics", []),
]
METHODS = ["GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS", "TRACE", "BREW", "G3T",
           "get", "POSTX", "M-SEARCH", "PROPFIND"]
CHAINS = ["sftree,updn,minhop", "updn", "updn,minhop", "ftree,updn", "sftree", "dmodk,updn",
          "smodk,updn", "opt,updn"]
ENGINE_OPTIONS = ["", "updn.detect=osm", "updn.strict=0", "minhop.count_switch_lids=1",
                  "opt.balance=0", "updn.roots=spine-00", "strict=0", "nope=1", "updn.roots=,,,"]
EVENT_TYPES = ["trap", "fault", "reroute", "error", "engine", "config", "daemon"]
# The dashboard's files and their content types (web/, served at /).
DASHBOARD = {"/": "text/html; charset=utf-8", "/index.html": "text/html; charset=utf-8",
             "/style.css": "text/css; charset=utf-8", "/app.js": "text/javascript; charset=utf-8",
             "/topo.js": "text/javascript; charset=utf-8"}
PROM_LINE = re.compile(r'^(#.*|[a-zA-Z_:][a-zA-Z0-9_:]*'
                       r'(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*",?)*\})? ([-+0-9.eE]+|[-+]?Inf|NaN))$')
REROUTING = ("/api/faults", "/api/engine", "/api/reroute")


class Fabric:
    """What the daemon says about its fabric: names to mix into requests."""

    def __init__(self):
        self.lids, self.guids, self.descs, self.switches, self.links = [], [], [], [], []
        self.snapshots = [1]


class Stats:
    def __init__(self):
        self.mu = threading.Lock()
        self.status = collections.Counter()
        self.raw = collections.Counter()
        self.mhd_limit = collections.Counter()
        self.fail = collections.defaultdict(list)   # check -> samples
        self.nfail = collections.Counter()
        self.requests = 0
        self.reroutes = collections.Counter()
        self.health = 0
        self.last = collections.deque(maxlen=12)     # the latest requests, for a dead daemon
        self.gone = None                               # those, when the daemon was first found gone

    def sent(self, what):
        with self.mu:
            self.last.append("%.2f s %s" % (time.monotonic() - self.t0, what))

    def daemon_gone(self):
        with self.mu:
            if self.gone is None:
                self.gone = list(self.last)

    def failed(self, check, sample):
        with self.mu:
            self.nfail[check] += 1
            if len(self.fail[check]) < 8:
                self.fail[check].append(sample)


def short(b, n=160):
    if isinstance(b, (bytes, bytearray)):
        b = b[:n].decode("latin-1")
    b = b.replace("\n", "\\n").replace("\r", "\\r")
    return b if len(b) <= n else b[:n] + "..."


class Worker:
    def __init__(self, args, fab, stats, seed, budget):
        self.args, self.fab, self.st, self.budget = args, fab, stats, budget
        self.rng = random.Random(seed)
        self.conn = None
        self.down_links = []

    # --- values ------------------------------------------------------------
    def rand_bytes(self, n):
        r = self.rng
        return bytes(r.randrange(256) for _ in range(n))

    def ident(self):
        """Something that names, or almost names, a port or node."""
        r, f = self.rng, self.fab
        k = r.randrange(16)
        if k < 3 and f.lids:
            return str(r.choice(f.lids))
        if k < 4 and f.lids:
            return hex(r.choice(f.lids))
        if k < 6 and f.guids:
            g = r.choice(f.guids)
            return g if r.random() < 0.7 else "0x" + g[2:].lstrip("0")
        if k < 8 and f.descs:
            return r.choice(f.descs)
        if k == 8:
            return str(r.choice([0, 49151, 49152, 65535, 65536, 2 ** 32, 2 ** 64, -1]))
        if k == 9:
            return "0x" + "".join(r.choice("0123456789abcdefABCDEF") for _ in range(r.randrange(0, 20)))
        if k == 10:
            return r.choice(["", " ", "leaf-00 ", "LEAF-00", "node-", "0x", "0X1", "1e3", "+1", "٣",
                             "n\u00f6de", "\U0001F600", "spine-0\u0000", "a" * 256, "a" * 257])
        if k == 11:
            return self.mutate(self.ident_plain())
        return self.rand_bytes(r.randrange(0, 40)).decode("latin-1")

    def ident_plain(self):
        f = self.fab
        pool = [str(x) for x in f.lids] + f.guids + f.descs
        return self.rng.choice(pool) if pool else "1"

    def mutate(self, s):
        r = self.rng
        s = list(s)
        for _ in range(r.randrange(1, 4)):
            op = r.randrange(5)
            if op == 0 and s:
                del s[r.randrange(len(s))]
            elif op == 1:
                s.insert(r.randrange(len(s) + 1), chr(r.randrange(256)))
            elif op == 2 and s:
                s[r.randrange(len(s))] = chr(r.randrange(0x20, 0x7f))
            elif op == 3:
                s = s * r.randrange(2, 6)
            else:
                s.insert(r.randrange(len(s) + 1), r.choice(["%", "%00", "/", "?", "&", "=", "#", "+",
                                                            "\\", "..", "\u00e9", "\ud800"]))
        return "".join(s)

    def enc(self, text):
        """Percent-encode text (str: as UTF-8, lone surrogates as raw bytes; bytes as is)."""
        if isinstance(text, str):
            text = text.encode("utf-8", "surrogatepass")
        return urllib.parse.quote_from_bytes(text, safe="")

    def value(self, name):
        r = self.rng
        k = r.randrange(12)
        if k == 0:
            return ""
        if k == 1:
            n = r.randrange(257, 10 * 1024)
            return r.choice(["a", "0", "é"]) * (n // 2) if r.random() < 0.5 else self.rand_bytes(n // 3)
        if k == 2:
            return self.rand_bytes(r.randrange(1, 64))
        if name == "type" and k < 6:
            return r.choice(["ca", "sw", "rt", "CA", "Sw", "router", "", "ca\u0000", "s"])
        if name == "limit" and k < 6:
            return str(r.choice([0, 1, 100, 10000, 10001, -1, 2 ** 63, 2 ** 64, "1x", " 1", "1.0"]))
        if name == "since" and k < 6:
            return r.choice(["0", "1", "9223372036854775807", "9223372036854775808",
                             "2026-11-21T10:00:00Z", "2026-11-21T10:00:00.123456Z", "1970-01-01T00:00:00Z",
                             "9999-12-31T23:59:59.999Z", "2026-13-45T99:99:99Z", "T", "2026-11-21T10:00:00",
                             "0000-00-00T00:00:00Z", "-1"])
        if name == "type" and k < 8:
            return r.choice(EVENT_TYPES)
        return self.ident()

    # --- requests ------------------------------------------------------------
    def segment(self):
        r = self.rng
        k = r.randrange(8)
        if k < 2 and self.fab.snapshots:
            return str(r.choice(self.fab.snapshots))
        if k < 4:
            return self.enc(self.ident())
        if k == 4:
            return r.choice(["0", "-1", "99999999999999999999", "1e3", "%00", "..", ".", "%2F", "%", "%zz",
                             "abc", "0x1", "9223372036854775807"])
        if k == 5:
            return "x" * r.randrange(100, 1500)
        return self.enc(self.rand_bytes(r.randrange(0, 30)))

    def path(self, pattern):
        r = self.rng
        p = pattern
        while "{}" in p:
            p = p.replace("{}", self.segment(), 1)
        k = r.randrange(14)
        if k == 0:
            p += "/"
        elif k == 1:
            p = p.replace("/", "//", 1)
        elif k == 2:
            p += "/" + self.segment()
        elif k == 3:
            p = p.upper()
        elif k == 4 and len(p) > 2:
            p = p[:r.randrange(1, len(p))]
        elif k == 5:
            p = "/api/" + self.segment()
        elif k == 6:
            p = r.choice(["/", "/api", "/api/", "/metrics/x", "/api/nodes/", "/api/snapshots/1/diff",
                          "/api/snapshots/1/diff/", "/./api/health", "/api/../api/health", "*"])
        return p[:1000] if "long-path" in self.args.avoid else p

    def query(self, params):
        r = self.rng
        parts = []
        for _ in range(r.choice([0, 0, 1, 2, 2, 3, 4, 6])):
            if params and r.random() < 0.75:
                name = r.choice(params)
            else:
                name = r.choice(["src", "dst", "type", "limit", "since", "x", "", "SRC", "src[]", "a" * 300,
                                 self.enc(self.rand_bytes(r.randrange(1, 10)))])
            if r.random() < 0.05:
                parts.append(self.enc(name) if r.random() < 0.5 else name)    # no '='
                continue
            v = self.value(name)
            parts.append(self.enc(name) + "=" + self.enc(v))
            if r.random() < 0.1:
                parts.append(parts[-1])                                       # repeated
        q = "&".join(parts)
        if r.random() < 0.03:
            q += r.choice(["&", "&&", "=", "%", "%G0", "#frag", "+"])
        return ("?" + q) if q or r.random() < 0.1 else ""

    def json_value(self, depth=0):
        r = self.rng
        k = r.randrange(9 if depth < 3 else 6)
        if k == 0:
            return None
        if k == 1:
            return r.choice([True, False])
        if k == 2:
            return r.choice([0, -1, 1.5, 2 ** 53, 10 ** 30, 1e308])
        if k < 6:
            return r.choice([self.ident(), self.ident_plain() + ":" + str(r.randrange(-1, 40)), "down", "up", ""])
        if k < 8:
            return [self.json_value(depth + 1) for _ in range(r.randrange(4))]
        return {self.ident()[:20]: self.json_value(depth + 1) for _ in range(r.randrange(4))}

    def fault_body(self):
        r = self.rng
        o = {}
        if r.random() < 0.9:
            o["action"] = r.choice(["down", "up", "down", "up", "sideways", "", "DOWN", 1, None, ["down"]])
        k = r.randrange(6)
        if k < 3:
            o["link"] = r.choice([self.ident(), self.ident_plain() + ":" + str(r.choice([0, 1, 2, 3, 4, 5, 99, -1])),
                                  self.ident_plain() + ":" + self.ident()])
        elif k < 5:
            o["switch"] = r.choice([self.ident(), r.choice(self.fab.switches or ["x"])])
        else:
            o["link"], o["switch"] = "leaf-00:1", "spine-00"
        if r.random() < 0.2:
            o[self.ident()[:30]] = self.json_value()
        if r.random() < 0.1:
            o[r.choice(["link", "switch", "action"])] = self.json_value()
        return o

    def engine_body(self):
        r = self.rng
        o = {}
        if r.random() < 0.9:
            o["chain"] = r.choice([r.choice(CHAINS), self.mutate(r.choice(CHAINS)), ",".join(["updn"] * r.randrange(1, 12)),
                                   "", "warp-drive", 7, None, "updn," * 60, self.ident()])
        if r.random() < 0.5:
            o["options"] = r.choice([r.choice(ENGINE_OPTIONS), self.mutate(r.choice(ENGINE_OPTIONS)), 3, None,
                                     "x=" * 2000])
        if r.random() < 0.2:
            o[self.ident()[:30]] = self.json_value()
        return o

    def body(self, path):
        r = self.rng
        k = r.randrange(20)
        if k < 9:
            o = self.fault_body() if "faults" in path else self.engine_body() if "engine" in path else \
                {self.ident()[:20]: self.json_value() for _ in range(r.randrange(3))}
            b = json.dumps(o, ensure_ascii=r.random() < 0.5).encode("utf-8", "surrogatepass")
            if r.random() < 0.1:   # a duplicate member (refused: JSON_REJECT_DUPLICATES)
                b = b.rstrip(b"}") + (b', "action": "down"}' if len(b) > 2 else b'"action": "down"}')
            return b
        if k < 11:
            return b""
        if k < 14:
            return r.choice([b"{", b"{chain:", b'{"chain": "updn"', b'{"a":1}}', b"[]", b"null", b"1", b'"s"',
                             b'{"action": "down", "link": "\\u0000"}', b'{"action": "\xff\xfe"}',
                             b'{"a": NaN}', b"[" * 5000 + b"]" * 5000, b"{\"a\":" * 3000 + b"1" + b"}" * 3000,
                             b'{"action":"down","link":"' + b"\xc3" + b'"}', b"\xef\xbb\xbf{}", b"{}\x00{}",
                             b'{"chain": "updn", "chain": "minhop"}'])
        if k < 16:
            return self.rand_bytes(r.randrange(1, 2000))
        if k < 18:
            n = r.choice([65535, 65536, 65537, 70000, 100 * 1024])
            return b'{"chain": "' + b"u" * (n - 13) + b'"}'
        return self.rand_bytes(r.randrange(2000, 100 * 1024))

    def valid_reroute(self):
        """A request that should be accepted and reroute: a fault, an engine chain, a reroute."""
        r, f = self.rng, self.fab
        k = r.randrange(10)
        if k < 6 and f.links:
            if self.down_links and (len(self.down_links) >= 3 or r.random() < 0.5):
                link = self.down_links.pop(r.randrange(len(self.down_links)))
                return "/api/faults", {"action": "up", "link": link}, "fault"
            link = r.choice(f.links)
            self.down_links.append(link)
            return "/api/faults", {"action": "down", "link": link}, "fault"
        if k < 8:
            return "/api/engine", {"chain": r.choice(CHAINS[:4])}, "engine"
        return "/api/reroute", {}, "reroute"

    def request(self):
        r = self.rng
        headers = {}
        token = None
        valid = None
        if r.random() < 0.04 and self.budget.take():
            path, obj, valid = self.valid_reroute()
            method, body, token = "POST", json.dumps(obj).encode(), self.args.token
        else:
            rm, pattern, params = r.choice(ROUTES)
            method = rm if r.random() < 0.75 else r.choice(METHODS)
            path = self.path(pattern) + self.query(params)
            body = self.body(path) if method in ("POST", "PUT", "PATCH") or r.random() < 0.03 else b""
            if "array-body" in self.args.avoid and body and is_json_array(body):
                body = b"{}"
            k = r.randrange(10)
            if k < 6 and method == "POST" and path.split("?")[0] in REROUTING and not self.budget.available():
                token = self.args.token + "-over-budget"
            elif k < 6:
                token = self.args.token
            elif k < 8:
                token = r.choice([self.args.token + "x", self.args.token[:-1], "", "x" * 16,
                                  self.args.token.upper()])
        if token is not None:
            headers["Authorization"] = r.choice(["Bearer ", "Bearer ", "Bearer ", "bearer ", "Bearer  ", "Basic "]) + token \
                if not valid else "Bearer " + token
        if body or method in ("POST", "PUT"):
            headers["Content-Type"] = r.choice(["application/json", "text/plain", "application/x-www-form-urlencoded",
                                                "multipart/form-data; boundary=x"]) if not valid else "application/json"
        if r.random() < 0.05 and not valid:
            headers[r.choice(["X-Junk", "Accept", "Accept-Encoding", "Cookie", "Range", "Expect"])] = \
                r.choice(["*/*", "gzip", "a=b", "bytes=0-1", "100-continue", "x" * r.randrange(1, 4000)])
        return method, path, body, headers, valid

    # --- sending and judging -------------------------------------------------
    def connect(self):
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.args.host, self.args.port, timeout=15)
        return self.conn

    def send(self, method, path, body, headers):
        for attempt in range(2):
            c = self.connect()
            try:
                c.putrequest(method, path, skip_accept_encoding=True)
                for k, v in headers.items():
                    c.putheader(k, v)
                c.putheader("Content-Length", str(len(body)))
                c.endheaders(body if body else None)
                resp = c.getresponse()
                data = resp.read()
                if resp.getheader("Connection", "").lower() == "close" or resp.will_close:
                    c.close()
                    self.conn = None
                return resp, data, None
            except (http.client.InvalidURL, ValueError, UnicodeEncodeError) as e:
                return None, None, "skip: " + str(e)
            except (ConnectionError, http.client.HTTPException, socket.timeout, OSError) as e:
                c.close()
                self.conn = None
                # a keep-alive connection the server closed in between: retry once, fresh
                if attempt == 0 and isinstance(e, (http.client.RemoteDisconnected, BrokenPipeError,
                                                   ConnectionResetError)):
                    continue
                return None, None, "%s: %s" % (type(e).__name__, e)
        return None, None, "no answer"

    def run(self, deadline):
        while time.monotonic() < deadline:
            method, path, body, headers, valid = self.request()
            resp, data, err = self.send(method, path, body, headers)
            if err and err.startswith("skip"):
                continue
            with self.st.mu:
                self.st.requests += 1
            what = "%s %s (path %d bytes, body %d bytes%s)" % (method, short(path, 120), len(path.split("?")[0]),
                                                               len(body), ", token" if "Authorization" in headers else "")
            self.st.sent(what)
            size = len(method) + len(path) + sum(len(k) + len(v) + 4 for k, v in headers.items())
            if err and size > 32768 and ("Reset" in err or "BrokenPipe" in err):
                # libmicrohttpd closes a connection whose request line and headers
                # exceed its memory: the rest of the request meets a reset
                with self.st.mu:
                    self.st.mhd_limit["reset"] += 1
                continue
            if err:
                self.st.failed("answered", "%s: %s" % (what, err))
                if "ConnectionRefused" in err:
                    self.st.daemon_gone()
                    return
                continue
            if resp.status == 202 and not valid:
                self.budget.spend()
            with self.st.mu:
                self.st.status[resp.status] += 1
                if resp.status == 202:
                    self.st.reroutes[valid or "random " + path.split("?")[0]] += 1
            if valid and valid != "fault" and resp.status != 202:
                self.st.failed("wellformed", "%s: a valid %s request got %d %s" % (what, valid, resp.status,
                                                                                     short(data)))
            hdrs = dict((k.lower(), v) for k, v in resp.getheaders())
            if size > 32768 and resp.status in (413, 414, 431) and \
                    not hdrs.get("content-type", "").startswith("application/json"):
                # libmicrohttpd's own answer: the request line and headers exceed the
                # connection's memory (MHD_OPTION_CONNECTION_MEMORY_LIMIT, 64 KB)
                with self.st.mu:
                    self.st.mhd_limit[resp.status] += 1
                continue
            judge(self.st, what, method, path, resp.status, hdrs, data)


def is_json_array(body):
    try:
        return isinstance(json.loads(body.decode("utf-8-sig")), list)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False


def judge(st, what, method, path, status, hdrs, data):
    """The checks every answer of the API must pass."""
    ctype = hdrs.get("content-type", "")
    # the path as api/server.c matches it: unescaped by libmicrohttpd, cut at a NUL, empty segments skipped
    route = urllib.parse.unquote_to_bytes(path.split("?", 1)[0]).split(b"\0")[0].decode("latin-1")
    route = "/" + "/".join(seg for seg in route.split("/") if seg)
    if status >= 500:
        ok503 = False
        if status == 503:
            try:
                j = json.loads(data) if data else None
                # GET /api/ready (whatever the path's slashes) or a query before the first epoch
                ok503 = isinstance(j, dict) and ((j.get("ready") is False and "failing" in j) or
                                                 (j.get("error") or {}).get("code") == "not_routed")
            except ValueError:
                pass
        if not ok503:
            st.failed("no5xx", "%s: %d %s" % (what, status, short(data)))
    if method == "HEAD":
        return
    if status == 200 and method == "GET" and route == "/metrics" and ctype.startswith("text/plain"):
        bad = [line for line in data.decode("utf-8", "replace").splitlines() if line and not PROM_LINE.match(line)]
        if bad:
            st.failed("wellformed", "%s: Prometheus line %r" % (what, short(bad[0])))
        return
    if status in (200, 304) and method == "GET" and route in DASHBOARD and ctype == DASHBOARD[route]:
        return  # the dashboard's files (web/), served whatever the query string
    if not ctype.startswith("application/json"):
        st.failed("wellformed", "%s: %d with Content-Type %r: %s" % (what, status, ctype, short(data)))
        return
    try:
        j = json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        st.failed("wellformed", "%s: %d, not JSON (%s): %s" % (what, status, e, short(data)))
        return
    if not isinstance(j, dict):
        st.failed("wellformed", "%s: %d, not a JSON object: %s" % (what, status, short(data)))
        return
    if 400 <= status < 500 or (status >= 500 and "error" in j):
        e = j.get("error")
        if not (isinstance(e, dict) and isinstance(e.get("code"), str) and e["code"] and
                isinstance(e.get("message"), str) and e["message"]):
            st.failed("wellformed", "%s: %d without {\"error\": {\"code\", \"message\"}}: %s" %
                      (what, status, short(data)))
    if status == 405 and not hdrs.get("allow"):
        st.failed("wellformed", "%s: 405 without Allow" % what)
    if status == 401 and not hdrs.get("www-authenticate"):
        st.failed("wellformed", "%s: 401 without WWW-Authenticate" % what)


class Budget:
    """A bucket of @rate accepted rerouting requests a second (at most @burst at once).

    A valid rerouting request is sent only with a token from the bucket;
    a random POST to a rerouting endpoint with the real bearer token only
    while the bucket is not empty, and it takes a token when accepted (202).
    """

    def __init__(self, rate, burst=2.0):
        self.mu, self.rate, self.burst = threading.Lock(), rate, burst
        self.tokens, self.t = 0.0, time.monotonic()

    def _fill(self):
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate)
        self.t = now

    def take(self):
        with self.mu:
            self._fill()
            if self.tokens < 1:
                return False
            self.tokens -= 1
            return True

    def available(self):
        with self.mu:
            self._fill()
            return self.tokens >= 1

    def spend(self):
        with self.mu:
            self.tokens -= 1


RAW = [
    b"GARBAGE\r\n\r\n",
    b"GET /api/health HTTP/1.1\r\n\r\n",                                  # no Host
    b"GET /api/health\r\n\r\n",                                            # HTTP/0.9
    b"GET /api/health HTTP/9.9\r\nHost: x\r\n\r\n",
    b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Trunc",                     # truncated headers
    b"GET /api/health HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n",
    b"GET /api/health HTTP/1.1\r\nHost: x\r\n folded: line\r\n\r\n",
    b"GET /api/health HTTP/1.1\r\nHost: x\r\nX: \x00\x01\x02\r\n\r\n",
    b"GET /api/he\x00alth HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET  /api/health  HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /api/health HTTP/1.1\nHost: x\n\n",                              # bare LF
    b"GET http://x/api/health HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /api/nodes/%zz%2 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /api/route?src=%ff%fe&dst=%c3 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /api/route?src=1&&&=&dst=2&= HTTP/1.1\r\nHost: x\r\n\r\n",
    b"POST /api/faults HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"act",   # truncated body
    b"POST /api/faults HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\nxx\r\n0\r\n\r\n",
    b"POST /api/faults HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nx\r\n",
    b"POST /api/faults HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    b"POST /api/faults HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    b"POST /api/faults HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
    b"POST /api/faults HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n",
    b"POST /api/faults HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    b"POST /api/engine HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n",
    b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\nGET /api/fabric HTTP/1.1\r\nHost: x\r\n\r\n",   # pipelined
    b"GET /api/health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
    b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close, close, upgrade\r\nUpgrade: websocket\r\n\r\n",
    b"CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"\r\n\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",                      # a TLS ClientHello
]


def raw_requests(args, st, rng, deadline):
    while time.monotonic() < deadline:
        k = rng.randrange(10)
        if k < 6:
            req = rng.choice(RAW)
        elif k == 6:
            req = b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * rng.choice([8000, 70000, 200000]) + b"\r\n\r\n"
        elif k == 7:
            req = b"GET /api/route?src=" + b"1" * rng.choice([60000, 100000]) + b" HTTP/1.1\r\nHost: x\r\n\r\n"
        elif k == 8:
            req = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
        else:
            base = bytearray(rng.choice(RAW))
            if not base:
                continue
            for _ in range(rng.randrange(1, 6)):
                base[rng.randrange(len(base))] = rng.randrange(256)
            req = bytes(base)
        st.sent("raw %r (%d bytes)" % (short(req, 100), len(req)))
        status, hdrs, data = raw_send(args, req, 0.5 if b"X-Trunc" in req or b"Content-Length: 100\r" in req else 3)
        with st.mu:
            st.raw["%s" % status] += 1
        if status == "connect-failed":
            st.failed("answered", "raw %r: cannot connect" % short(req, 80))
            st.daemon_gone()
            return
        if isinstance(status, int) and hdrs.get("content-type", "").startswith("application/json"):
            judge(st, "raw %r" % short(req, 80), "GET", "/raw", status, hdrs, data)


def raw_send(args, req, timeout):
    """Send @req, read one answer: (status or None, content type, body)."""
    try:
        s = socket.create_connection((args.host, args.port), timeout=timeout)
    except OSError:
        return "connect-failed", {}, b""
    try:
        s.sendall(req)
        s.shutdown(socket.SHUT_WR) if b"X-Trunc" in req else None
        buf = b""
        while b"\r\n\r\n" not in buf and len(buf) < 1 << 20:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
        head, _, rest = buf.partition(b"\r\n\r\n")
        m = re.match(rb"HTTP/1\.[01] (\d{3})", head)
        if not m:
            return ("closed" if not buf else "junk"), {}, b""
        status = int(m.group(1))
        hdrs = {}
        for line in head.decode("latin-1").split("\r\n")[1:]:
            k, _, v = line.partition(":")
            hdrs[k.strip().lower()] = v.strip()
        cl = re.search(rb"(?im)^content-length:\s*(\d+)", head)
        if cl:
            while len(rest) < int(cl.group(1)):
                chunk = s.recv(65536)
                if not chunk:
                    break
                rest += chunk
            rest = rest[:int(cl.group(1))]
        return status, hdrs, rest
    except (socket.timeout, OSError):
        return "timeout/reset", {}, b""
    finally:
        s.close()


def health(args, st, stop):
    while not stop.is_set():
        ok, why = health_once(args)
        with st.mu:
            st.health += 1
        if not ok:
            st.failed("alive", "GET /api/health at %.1f s: %s" % (time.monotonic() - st.t0, why))
            if "ConnectionRefused" in why:
                st.daemon_gone()
                return
        stop.wait(0.2)


def health_once(args):
    try:
        c = http.client.HTTPConnection(args.host, args.port, timeout=10)
        c.request("GET", "/api/health")
        r = c.getresponse()
        data = r.read()
        c.close()
        if r.status != 200 or json.loads(data).get("status") != "ok":
            return False, "%d %s" % (r.status, short(data))
        return True, ""
    except (OSError, http.client.HTTPException, ValueError) as e:
        return False, "%s: %s" % (type(e).__name__, e)


def get_json(args, path):
    c = http.client.HTTPConnection(args.host, args.port, timeout=30)
    c.request("GET", path)
    r = c.getresponse()
    j = json.loads(r.read())
    c.close()
    return j


def learn(args):
    """LIDs, GUIDs, descriptions, switches and switch-to-switch links of the fabric."""
    f = Fabric()
    for n in get_json(args, "/api/nodes")["nodes"]:
        f.guids.append(n["guid"])
        f.descs.append(n["node"])
        if n["type"] == "SW":
            f.switches.append(n["node"])
    for x in get_json(args, "/api/lids")["lids"]:
        f.lids.append(x["lid"])
        f.guids.append(x["guid"])
    sw = set(f.switches)
    for link in get_json(args, "/api/links")["links"]:
        if link["a"]["node"] in sw and link["b"]["node"] in sw:
            f.links.append("%s:%d" % (link["a"]["node"], link["a"]["port"]))
    f.snapshots = [s["id"] for s in get_json(args, "/api/snapshots").get("snapshots", [])] or [1]
    f.guids = sorted(set(f.guids))
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True, help="http://127.0.0.1:PORT")
    ap.add_argument("--token-file", required=True)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--results", required=True)
    ap.add_argument("--avoid", default="",
                    help="comma-separated known findings not to trigger, to fuzz past them: long-path (paths "
                         "cut to 1000 bytes), array-body (no JSON array as a request body)")
    args = ap.parse_args()
    args.avoid = set(a for a in args.avoid.split(",") if a)
    unknown = args.avoid - {"long-path", "array-body"}
    if unknown:
        ap.error("--avoid: unknown %s" % ", ".join(sorted(unknown)))
    u = urllib.parse.urlparse(args.url)
    args.host, args.port = u.hostname, u.port
    with open(args.token_file) as fh:
        args.token = fh.read().strip()

    st = Stats()
    st.t0 = time.monotonic()
    fab = learn(args)
    budget = Budget(1.0)
    stop = threading.Event()
    deadline = time.monotonic() + args.seconds
    threads = [threading.Thread(target=health, args=(args, st, stop), daemon=True)]
    workers = [Worker(args, fab, st, args.seed * 1000 + i, budget) for i in range(args.workers)]
    threads += [threading.Thread(target=w.run, args=(deadline,), daemon=True) for w in workers]
    threads.append(threading.Thread(target=raw_requests, args=(args, st, random.Random(args.seed * 1000 + 999),
                                                               deadline), daemon=True))
    for t in threads:
        t.start()
    for t in threads[1:]:
        t.join(args.seconds + 120)
    stop.set()
    threads[0].join(15)
    hung = [t.name for t in threads if t.is_alive()]
    ok, why = health_once(args)
    if not ok:
        st.failed("alive", "GET /api/health after the run: " + why)
    if hung:
        st.failed("answered", "threads still waiting after the run: %s" % ", ".join(hung))

    out = []
    desc = {
        "alive": "the daemon answers GET /api/health with 200 throughout (%d checks)" % st.health,
        "no5xx": "no 5xx answer but the documented 503s (%d requests)" % st.requests,
        "wellformed": "every answer is JSON (or Prometheus text), every 4xx has error.code and error.message",
        "answered": "every request got an answer (no reset, no timeout)",
    }
    out.append("diag %d requests over keep-alive connections in %.0f s, seed %d" %
               (st.requests, args.seconds, args.seed))
    out.append("diag statuses: " + ", ".join("%s: %d" % (k, v) for k, v in sorted(st.status.items())))
    out.append("diag of which libmicrohttpd's own answers to requests over 32 KB: " +
               (", ".join("%s: %d" % kv for kv in sorted(st.mhd_limit.items())) or "none"))
    out.append("diag raw-socket answers: " + ", ".join("%s: %d" % (k, v) for k, v in
                                                        sorted(st.raw.items(), key=lambda kv: str(kv[0]))))
    out.append("diag accepted (202) rerouting requests: " + (", ".join("%s: %d" % kv for kv in sorted(st.reroutes.items()))
                                                        or "none"))
    if st.gone is not None:
        out.append("diag the daemon was gone (connection refused); the last requests before:")
        out += ["diag   " + s.replace("\n", " ") for s in st.gone]
    for name in ("alive", "no5xx", "wellformed", "answered"):
        n = st.nfail[name]
        out.append("check %s %d %s" % (name, 0 if n else 1, desc[name]))
        if n:
            out.append("diag %s: %d failures; samples:" % (name, n))
            out += ["diag   " + s.replace("\n", " ") for s in st.fail[name]]
    with open(args.results, "w") as fh:
        fh.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
