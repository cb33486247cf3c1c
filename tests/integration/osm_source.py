#!/usr/bin/env python3
"""Play the fabroute-osm plugin (protocol 3) against fabrouted --source opensm.

osm_source.py SOCKET CHECK: runs one check and prints "ok" or a reason.
"""
import json, socket, struct, sys, time

SUBNET = {
    "sm_port_guid": "0x0000000000000101",
    "nodes": [
        {"guid": "0x0000000000000010", "type": "SW", "desc": "swA", "ports": 4},
        {"guid": "0x0000000000000020", "type": "SW", "desc": "swB", "ports": 4},
        {"guid": "0x0000000000000100", "type": "CA", "desc": "h1", "ports": 1},
        {"guid": "0x0000000000000200", "type": "CA", "desc": "h2", "ports": 1},
    ],
    "ports": [
        [0, 0, "0x0000000000000010", 1, 0, 4, 5, 2, 4, 4],
        [1, 0, "0x0000000000000020", 2, 0, 4, 5, 2, 4, 4],
        [2, 1, "0x0000000000000101", 3, 0, 4, 5, 2, 4, 4],
        [3, 1, "0x0000000000000201", 4, 0, 4, 5, 2, 4, 4],
    ],
    "links": [[0, 1, 2, 1], [1, 1, 3, 1], [0, 3, 1, 3]],
}
TYPES = {"CA": 1, "SW": 2, "RT": 3}


def encode(subnet):
    """The "subnet" member and the payload of a route request (doc/osm-protocol.md)."""
    data = b""
    for n in subnet["nodes"]:
        data += struct.pack(">QQIHBB64s", int(n["guid"], 16), 0, 0, 0, TYPES[n["type"]], n["ports"],
                            n["desc"].encode())
    for node, port, guid, lid, lmc, state, phys, width, speed, vls in subnet["ports"]:
        data += struct.pack(">IQHBBBBBBB3x", node, int(guid, 16), lid, port, lmc, state, phys, width, speed, vls)
    for a, pa, b, pb in subnet["links"]:
        data += struct.pack(">IIBB2x", a, b, pa, pb)
    counts = {"sm_port_guid": subnet["sm_port_guid"], "nodes": len(subnet["nodes"]),
              "ports": len(subnet["ports"]), "links": len(subnet["links"])}
    return counts, data


def route_request(rid, subnet):
    counts, data = encode(subnet)
    return {"type": "route", "v": 3, "id": rid, "subnet": counts, "payload": len(data)}, data


WANT = {"0x0000000000000010": [0, 3, 1, 3], "0x0000000000000020": [3, 0, 3, 1]}


def send(s, obj, payload=b"", raw=None):
    data = raw if raw is not None else json.dumps(obj).encode()
    s.sendall(struct.pack(">I", len(data)) + data + payload)


def readn(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def recv_frame(s):
    """One frame: (object, payload bytes), or (None, None) when the peer closed."""
    hdr = readn(s, 4)
    if hdr is None:
        return None, None
    data = readn(s, struct.unpack(">I", hdr)[0])
    if data is None:
        return None, None
    msg = json.loads(data)
    payload = readn(s, msg.get("payload", 0)) if msg.get("payload") else b""
    return msg, payload


def recv(s):
    return recv_frame(s)[0]


def connect(path, role, v=3):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    s.connect(path)
    send(s, {"type": "hello", "v": v, "role": role, "opensm": "OpenSM test", "plugin": "osm_source.py"})
    ans = recv(s)
    if not ans or ans.get("type") != "hello" or ans.get("v") != 3:
        raise SystemExit("no hello: %r" % ans)
    return s


def lfts_of(ans, payload):
    """{switch guid: LFT bytes} from a routing answer and its payload."""
    n = ans["lft_len"]
    return {g: payload[i * n:(i + 1) * n] for i, g in enumerate(ans["lfts"])}


def pass_result(path, res, **kw):
    """Report how a pass ended, as the plugin does on its control connection."""
    c = connect(path, "control")
    send(c, dict({"type": "event", "v": 3, "event": "pass_result", "result": res, "ms": 5}, **kw))
    time.sleep(0.2)
    c.close()


def check_route(path):
    s = connect(path, "route")
    send(s, *route_request(7, SUBNET))
    ans, payload = recv_frame(s)
    if ans.get("type") == "routing":  # installed: the daemon publishes it
        pass_result(path, "routed", epoch=ans["epoch"], engine=ans["engine"], switches=len(ans["lfts"]))
    if ans.get("type") != "routing" or ans.get("id") != 7:
        return "answer: %r" % ans
    if ans.get("payload") != len(payload) or len(payload) != ans["lft_len"] * len(ans["lfts"]):
        return "payload of %d bytes for %d LFTs of %d" % (len(payload), len(ans["lfts"]), ans["lft_len"])
    if ans.get("sl2vl") != [] or ans.get("path_sl") != []:
        return "SL2VL tables or path SLs for a routing on SL 0: %r %r" % (ans.get("sl2vl"), ans.get("path_sl"))
    got = {g: list(t)[1:5] for g, t in lfts_of(ans, payload).items()}
    return "ok" if got == WANT else "LFTs %r, want %r" % (got, WANT)


def check_bad_subnet(path):
    s = connect(path, "route")
    bad = dict(SUBNET, links=[[0, 9, 2, 1]])
    send(s, *route_request(8, bad))
    ans = recv(s)
    if ans.get("type") != "error" or "subnet.links[0]" not in ans.get("message", ""):
        return "answer: %r" % ans
    send(s, *route_request(9, SUBNET))  # the connection still serves
    ans, _ = recv_frame(s)
    if ans.get("type") != "routing":
        return "after an error: %r" % ans
    pass_result(path, "routed", epoch=ans["epoch"], engine=ans["engine"], switches=len(ans["lfts"]))
    return "ok"


def check_malformed(path):
    for raw in (b"{not json", json.dumps({"type": "route", "v": 2}).encode(), b"[]",
                json.dumps({"type": "route", "v": 3, "payload": 2 ** 31}).encode()):
        s = connect(path, "route")
        send(s, None, raw=raw)
        if recv(s) is not None:
            return "the daemon answered a malformed frame %r" % raw
    s = connect(path, "route")
    s.sendall(struct.pack(">I", 0x7FFFFFFF))  # 2 GiB frame announced
    if recv(s) is not None:
        return "the daemon answered a frame of 2 GiB"
    return "ok"


def check_control(path):
    s = connect(path, "control")
    send(s, {"type": "event", "v": 3, "event": "trap", "trap": 128, "lid": 1, "port": 0, "issuer": 1,
             "text": "Link state change"})
    send(s, {"type": "event", "v": 3, "event": "trap", "trap": 129, "lid": 3, "port": 1, "issuer": 3,
             "text": "Local Link integrity threshold reached"})
    # three switches' blocks, interleaved as LFT receivers report them: 5 blocks, 2 switches
    for guid in ("0x10", "0x20", "0x10", "0x20", "0x10"):
        send(s, {"type": "event", "v": 3, "event": "lft_change", "guid": guid, "block": 0})
    send(s, {"type": "event", "v": 3, "event": "routing_done", "reroute": False, "engine": "fabroute"})
    send(s, {"type": "event", "v": 3, "event": "subnet_up"})
    time.sleep(0.3)
    s.setblocking(False)
    try:
        if s.recv(1) == b"":
            return "the daemon closed the control connection after the events"
    except BlockingIOError:
        pass  # still open, nothing to read: the events were taken
    return "ok"


def check_late(path):
    """An answer the plugin did not install (its deadline had passed): prints its epoch."""
    s = connect(path, "route")
    send(s, *route_request(8, SUBNET))
    ans, _ = recv_frame(s)
    if ans.get("type") != "routing":
        return "answer: %r" % ans
    pass_result(path, "timeout", reason="waiting for the routing: timed out")
    return "epoch %d" % ans["epoch"]


def check_passes(path):
    """One pass of each result, as the plugin reports them."""
    s = connect(path, "control")
    send(s, {"type": "event", "v": 3, "event": "pass_result", "result": "routed", "ms": 12, "epoch": 1,
             "engine": "minhop", "switches": 2})
    for res, why in (("fallback", "the routing uses SLs 0,1 and VLs 0,1, but OpenSM's QoS is off"),
                     ("timeout", "waiting for the routing: timed out"),
                     ("error", "cannot reach fabrouted")):
        send(s, {"type": "event", "v": 3, "event": "pass_result", "result": res, "ms": 5, "reason": why})
    time.sleep(0.3)
    return "ok"


def check_v1_plugin(path):
    """A plugin of protocol 1: an error in version 1 naming both versions, then the connection closes."""
    for role in ("route", "control", "control"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(20)
        s.connect(path)
        send(s, {"type": "hello", "v": 1, "role": role, "opensm": "OpenSM test", "plugin": "fabroute-osm 0.0.1"})
        ans = recv(s)
        if not ans or ans.get("type") != "error" or ans.get("v") != 1 or "protocol 3" not in ans.get("message", ""):
            return "answer to a v1 hello: %r" % ans
        if recv(s) is not None:
            return "the connection stayed open after the refusal"
    return "ok"


def check_sweep(path):
    s = connect(path, "control")
    print("connected", flush=True)
    ans = recv(s)
    return "ok" if ans and ans.get("type") == "sweep" and ans.get("heavy") is True else "got %r" % ans


def check_leftovers(path):
    """16 connections that said hello and stay idle (a plugin's leftovers), then a plugin routes."""
    idle = [connect(path, "control") for _ in range(16)]
    try:
        return check_route(path)
    except (OSError, SystemExit) as e:
        return "a plugin after 16 idle connections: %s" % e
    finally:
        for s in idle:
            s.close()


def check_big_frames(path):
    """A frame of 256 MiB, then 64 MiB of it sent: the daemon closes at the header."""
    s = connect(path, "route")
    s.sendall(struct.pack(">I", 256 << 20))
    sent = 0
    try:
        chunk = b" " * (1 << 20)
        for _ in range(64):
            s.sendall(chunk)
            sent += len(chunk)
    except OSError:
        pass
    if recv(s) is not None:
        return "the daemon answered a frame of 256 MiB"
    s = connect(path, "route")
    req, _ = route_request(1, SUBNET)
    req["payload"] = (64 << 20) + 1  # above any subnet the LID space holds
    send(s, req)
    try:
        s.sendall(b"\0" * (8 << 20))
    except OSError:
        pass
    if recv(s) is not None:
        return "the daemon answered a payload above 64 MiB"
    return "ok"


if __name__ == "__main__":
    print(globals()["check_" + sys.argv[2]](sys.argv[1]), flush=True)
