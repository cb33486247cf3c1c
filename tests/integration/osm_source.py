#!/usr/bin/env python3
"""Play the fabroute-osm plugin against fabrouted --source opensm.

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
        [0, 0, "0x0000000000000010", 1, 0, 4, 5, 2, 4],
        [1, 0, "0x0000000000000020", 2, 0, 4, 5, 2, 4],
        [2, 1, "0x0000000000000101", 3, 0, 4, 5, 2, 4],
        [3, 1, "0x0000000000000201", 4, 0, 4, 5, 2, 4],
    ],
    "links": [[0, 1, 2, 1], [1, 1, 3, 1], [0, 3, 1, 3]],
}
WANT = {"0x0000000000000010": [0, 3, 1, 3], "0x0000000000000020": [3, 0, 3, 1]}


def send(s, obj, raw=None):
    data = raw if raw is not None else json.dumps(obj).encode()
    s.sendall(struct.pack(">I", len(data)) + data)


def recv(s):
    hdr = b""
    while len(hdr) < 4:
        chunk = s.recv(4 - len(hdr))
        if not chunk:
            return None
        hdr += chunk
    n = struct.unpack(">I", hdr)[0]
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return json.loads(data)


def connect(path, role):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    s.connect(path)
    send(s, {"type": "hello", "v": 1, "role": role, "opensm": "OpenSM test", "plugin": "osm_source.py"})
    ans = recv(s)
    if not ans or ans.get("type") != "hello":
        raise SystemExit("no hello: %r" % ans)
    return s


def check_route(path):
    s = connect(path, "route")
    send(s, {"type": "route", "v": 1, "id": 7, "subnet": SUBNET})
    ans = recv(s)
    if ans.get("type") != "routing" or ans.get("id") != 7:
        return "answer: %r" % ans
    got = {e["guid"]: list(bytes.fromhex(e["lft"]))[1:5] for e in ans["lfts"]}
    return "ok" if got == WANT else "LFTs %r, want %r" % (got, WANT)


def check_bad_subnet(path):
    s = connect(path, "route")
    bad = dict(SUBNET, links=[[0, 9, 2, 1]])
    send(s, {"type": "route", "v": 1, "id": 8, "subnet": bad})
    ans = recv(s)
    if ans.get("type") != "error" or "subnet.links[0]" not in ans.get("message", ""):
        return "answer: %r" % ans
    send(s, {"type": "route", "v": 1, "id": 9, "subnet": SUBNET})  # the connection still serves
    ans = recv(s)
    return "ok" if ans.get("type") == "routing" else "after an error: %r" % ans


def check_malformed(path):
    for raw in (b"{not json", json.dumps({"type": "route", "v": 2}).encode(), b"[]"):
        s = connect(path, "route")
        send(s, None, raw)
        if recv(s) is not None:
            return "the daemon answered a malformed frame %r" % raw
    s = connect(path, "route")
    s.sendall(struct.pack(">I", 0x7FFFFFFF))  # 2 GiB frame announced
    if recv(s) is not None:
        return "the daemon answered a frame of 2 GiB"
    return "ok"


def check_control(path):
    s = connect(path, "control")
    send(s, {"type": "event", "v": 1, "event": "trap", "trap": 128, "lid": 1, "port": 0})
    send(s, {"type": "event", "v": 1, "event": "subnet_up"})
    time.sleep(0.3)
    s.setblocking(False)
    try:
        if s.recv(1) == b"":
            return "the daemon closed the control connection after the events"
    except BlockingIOError:
        pass  # still open, nothing to read: the events were taken
    return "ok"


def check_sweep(path):
    s = connect(path, "control")
    print("connected", flush=True)
    ans = recv(s)
    return "ok" if ans and ans.get("type") == "sweep" and ans.get("heavy") is True else "got %r" % ans


if __name__ == "__main__":
    print(globals()["check_" + sys.argv[2]](sys.argv[1]), flush=True)
