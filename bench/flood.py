#!/usr/bin/env python3
"""Attacks on fabrouted's API, with probes running throughout; prints figures
(one "key=value" line, or JSON with --json).

  bench/flood.py URL MODE [--conns N] [--from ADDRS] [--seconds S] [--interval S]
                 [--persist] [--path PATH] [--other ADDR] [--token-file FILE] [--pid PID]
                 [--probe-timeout S]

Modes (each from --conns connections, spread over the --from addresses):
  keepalive  keep-alive clients send GET /api/health in a loop for S seconds
             (answers, errors, requests/s);
  half       connections send half a request line and close, as fast as
             possible (--conns of them in all);
  slow       headers sent one byte every --interval seconds (slowloris);
  body       POST /api/faults with "Content-Length: 60000", the body sent one
             byte every --interval seconds (no token needed);
  expect     POST /api/faults with "Expect: 100-continue", then silence;
  reads      keep-alive clients send GET --path in a loop (heavy reads).
For slow, body and expect: how many connections the server closed, and when,
and the longest any connection was held (with --persist, a connection the
server closes is opened again at once).

Probes, each in a process of its own so that the attack's client load does
not slow them: GET /api/health on a new connection every 0.1 s (timeout
--probe-timeout, 1 s) from the first attack address ("same") and, with --other, from
that address (a non-loopback address of this host: another client);
with --token-file, POST /api/reroute with the token every second (2 s
timeout or --probe-timeout, "admin"); with --pid, the daemon's resident memory every 0.2 s.
Each probe reports how many answered, how many within 100 ms (1 s for the
administrator's), the median, 99th percentile and largest latency. After
the attack: seconds until a health check is answered again (at most
--recover).

--from: addresses the attack connects from: "127.0.0.2" (the default),
"127.0.0.1-5" (a range of the last byte), or a comma list. The URL's host
must be a loopback address.
"""
import argparse
import asyncio
import json
import multiprocessing
import sys
import time
from urllib.parse import urlsplit

HEALTH = b"GET /api/health HTTP/1.1\r\nHost: fabroute\r\n\r\n"


def addresses(spec):
    out = []
    for part in spec.split(","):
        if "-" in part:
            base, last = part.rsplit("-", 1)
            head, first = base.rsplit(".", 1)
            out += ["%s.%d" % (head, i) for i in range(int(first), int(last) + 1)]
        else:
            out.append(part)
    return out


async def read_answer(r):
    """One HTTP answer (headers and Content-Length body); its status."""
    head = await r.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    n = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":", 1)[1])
    await r.readexactly(n)
    return status


async def ask_once(host, port, src, req, want, timeout):
    """(answered with @want, seconds, why not) of one request on a new connection."""
    t0 = time.monotonic()
    try:
        r, w = await asyncio.wait_for(asyncio.open_connection(host, port, local_addr=(src, 0)), timeout)
        try:
            w.write(req)
            st = await asyncio.wait_for(read_answer(r), max(0.01, timeout - (time.monotonic() - t0)))
        finally:
            w.close()
        return st == want, time.monotonic() - t0, "status %d" % st
    except asyncio.TimeoutError:
        return False, time.monotonic() - t0, "timeout"
    except (OSError, asyncio.IncompleteReadError) as e:
        return False, time.monotonic() - t0, "closed (%s)" % type(e).__name__
    except (ValueError, IndexError):
        return False, time.monotonic() - t0, "bad answer"


def summary(samples, within):
    """Figures of a probe's (ok, seconds, why) samples."""
    lat = sorted(dt for ok, dt, _ in samples if ok)
    n = len(samples)
    why = {}
    for ok, _, w in samples:
        if not ok:
            why[w] = why.get(w, 0) + 1

    def pct(p):
        return round(lat[min(len(lat) - 1, int(p * len(lat)))] * 1000, 1) if lat else None
    fast = sum(1 for ok, dt, _ in samples if ok and dt <= within)
    out = {"n": n, "ok": len(lat), "fast": fast, "fast_pct": round(100.0 * fast / n, 2) if n else None,
           "p50_ms": pct(0.5), "p99_ms": pct(0.99), "max_ms": round(lat[-1] * 1000, 1) if lat else None}
    if why:
        out["failed"] = why
    return out


def prober_main(host, port, src, req, want, every, timeout, stop, conn):
    async def run():
        samples = []
        while not stop.is_set():
            good, dt, why = await ask_once(host, port, src, req, want, timeout)
            samples.append((good, dt, why))
            await asyncio.sleep(max(0, every - dt))
        conn.send(samples)
    asyncio.run(run())


def rss_mb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


def memory_main(pid, stop, conn):
    start = peak = rss_mb(pid)
    while not stop.wait(0.2):
        v = rss_mb(pid)
        if v is not None and (peak is None or v > peak):
            peak = v
    conn.send((start, peak))


async def recover(host, port, src, limit):
    """Seconds until a health check is answered after the attack (None: never)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        good, _, _ = await ask_once(host, port, src, HEALTH, 200, 1)
        if good:
            return round(time.monotonic() - t0, 3)
        await asyncio.sleep(0.1)
    return None


async def loop_requests(a, host, port, out, req):
    """keepalive and reads: clients send @req in a loop on kept-alive connections."""
    stats = {"answers": 0, "errors": 0, "refused": 0, "status": {}}
    end = time.monotonic() + a.seconds

    async def client(i):
        while time.monotonic() < end:
            try:
                r, w = await asyncio.open_connection(host, port, local_addr=(a.src[i % len(a.src)], 0))
            except OSError:
                stats["refused"] += 1
                await asyncio.sleep(0.05)
                continue
            try:
                while time.monotonic() < end:
                    w.write(req)
                    st = await asyncio.wait_for(read_answer(r), max(0.1, end - time.monotonic()))
                    stats["answers" if st == 200 else "errors"] += 1
                    stats["status"][str(st)] = stats["status"].get(str(st), 0) + 1
            except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError):
                stats["errors"] += 1
                await asyncio.sleep(0.05)
            finally:
                w.close()

    await asyncio.gather(*(client(i) for i in range(a.conns)))
    out.update(stats)
    out["requests_per_s"] = round(stats["answers"] / a.seconds)


async def keepalive(a, host, port, out):
    await loop_requests(a, host, port, out, HEALTH)


async def reads(a, host, port, out):
    await loop_requests(a, host, port, out,
                        ("GET %s HTTP/1.1\r\nHost: fabroute\r\n\r\n" % a.path).encode())


async def half(a, host, port, out):
    t0 = time.monotonic()
    done = failed = 0
    sem = asyncio.Semaphore(200)

    async def one(i):
        nonlocal done, failed
        async with sem:
            try:
                r, w = await asyncio.wait_for(
                    asyncio.open_connection(host, port, local_addr=(a.src[i % len(a.src)], 0)), 2)
                w.write(b"GET /api/hea")
                await w.drain()
                w.close()
                done += 1
            except (OSError, asyncio.TimeoutError):
                failed += 1

    await asyncio.gather(*(one(i) for i in range(a.conns)))
    out.update({"sent": done, "connect_failed": failed, "attack_s": round(time.monotonic() - t0, 3)})


async def trickle(a, host, port, out, head, body):
    """
    slow, body, expect: send @head at once, then @body one byte per interval;
    who closes when. With --persist, a connection the server closes is
    opened again at once, as a determined attacker would.
    """
    opened, closed_at, held, left_open = 0, [], [], 0
    t0 = time.monotonic()
    end = t0 + a.seconds

    async def one(i):
        nonlocal opened, left_open
        while time.monotonic() < end:
            try:
                r, w = await asyncio.wait_for(
                    asyncio.open_connection(host, port, local_addr=(a.src[i % len(a.src)], 0)), 2)
            except (OSError, asyncio.TimeoutError):
                await asyncio.sleep(0.05)
                continue
            opened += 1
            t1 = time.monotonic()
            closed = False
            try:
                w.write(head)
                for b in body:
                    if time.monotonic() >= end:
                        break
                    if b is not None:
                        w.write(bytes([b]))
                    await w.drain()
                    try:	# the server closing (or answering) shows here
                        got = await asyncio.wait_for(r.read(4096), min(a.interval, max(0.01, end - time.monotonic())))
                        if got != b"HTTP/1.1 100 Continue\r\n\r\n":
                            closed = True
                            break
                    except asyncio.TimeoutError:
                        pass
            except OSError:
                closed = True
            finally:
                w.close()
            t2 = time.monotonic()
            held.append(t2 - t1)
            if closed:
                closed_at.append(t2 - t0)
            else:
                left_open += 1
            if not (closed and a.persist):
                return
            await asyncio.sleep(0.01)

    await asyncio.gather(*(one(i) for i in range(a.conns)))
    out.update({"opened": opened, "closed_by_server": len(closed_at),
                "closed_within_1s": sum(t < 1 for t in closed_at), "open_at_end": left_open,
                "first_close_s": round(min(closed_at), 2) if closed_at else None,
                "last_close_s": round(max(closed_at), 2) if closed_at else None,
                "held_max_s": round(max(held), 2) if held else None})


def forever():
    while True:
        yield None


async def slow(a, host, port, out):
    await trickle(a, host, port, out, b"", HEALTH[:-2])	# never the final CRLF


async def body(a, host, port, out):
    head = b"POST /api/faults HTTP/1.1\r\nHost: fabroute\r\nContent-Length: 60000\r\n\r\n"
    await trickle(a, host, port, out, head, b"{" + b" " * 59999)


async def expect(a, host, port, out):
    head = (b"POST /api/faults HTTP/1.1\r\nHost: fabroute\r\nContent-Length: 100\r\n"
            b"Expect: 100-continue\r\n\r\n")
    await trickle(a, host, port, out, head, forever())


def start_probe(host, port, src, req, want, every, timeout, stop):
    parent, child = multiprocessing.Pipe()
    p = multiprocessing.Process(target=prober_main, args=(host, port, src, req, want, every, timeout, stop, child))
    p.start()
    return p, parent


async def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("url")
    p.add_argument("mode", choices=["keepalive", "half", "slow", "body", "expect", "reads"])
    p.add_argument("--conns", type=int, default=300)
    p.add_argument("--from", dest="src", default="127.0.0.2", help="attack source addresses")
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--interval", type=float, default=1)
    p.add_argument("--persist", action="store_true", help="slow, body, expect: reopen what the server closes")
    p.add_argument("--path", default="/api/events?limit=1000", help="reads: the path asked")
    p.add_argument("--other", help="probe health from this (non-loopback) address too")
    p.add_argument("--token-file", help="probe POST /api/reroute with this token every second")
    p.add_argument("--pid", type=int, help="sample this process's resident memory")
    p.add_argument("--probe-timeout", type=float, default=1, help="seconds a health probe waits (then it failed)")
    p.add_argument("--recover", type=float, default=10)
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    a.src = addresses(a.src)
    u = urlsplit(a.url)
    if not (u.hostname or "").startswith("127."):
        sys.exit("flood.py: loopback only: the URL's host must be a 127.x address")
    host, port = u.hostname, u.port
    stop = multiprocessing.Event()
    probes = {"same": start_probe(host, port, a.src[0], HEALTH, 200, 0.1, a.probe_timeout, stop)}
    if a.other:
        probes["other"] = start_probe(host, port, a.other, HEALTH, 200, 0.1, a.probe_timeout, stop)
    if a.token_file:
        with open(a.token_file) as f:
            tok = f.read().strip()
        req = ("POST /api/reroute HTTP/1.1\r\nHost: fabroute\r\nAuthorization: Bearer %s\r\n"
               "Content-Length: 0\r\n\r\n" % tok).encode()
        probes["admin"] = start_probe(host, port, a.src[0], req, 202, 1, max(2, a.probe_timeout), stop)
    if a.pid:
        mparent, mchild = multiprocessing.Pipe()
        mem = multiprocessing.Process(target=memory_main, args=(a.pid, stop, mchild))
        mem.start()
    out = {"mode": a.mode, "conns": a.conns}
    await globals()[a.mode](a, host, port, out)
    stop.set()
    for name, (proc, pipe) in probes.items():
        samples = pipe.recv()
        proc.join()
        out[name] = summary(samples, 1.0 if name == "admin" else 0.1)
    if a.pid:
        start, peak = mparent.recv()
        mem.join()
        out["rss_start_mb"] = round(start, 1) if start else None
        out["rss_max_mb"] = round(peak, 1) if peak else None
    out["probes_ok"] = out["same"]["ok"]
    out["probes_failed"] = out["same"]["n"] - out["same"]["ok"]
    out["recovery_s"] = await recover(host, port, a.src[0], a.recover)
    print(json.dumps(out) if a.json else " ".join("%s=%s" % kv for kv in out.items()))


if __name__ == "__main__":
    asyncio.run(main())
