#!/usr/bin/env python3
"""Connection floods against fabrouted's API, with a health prober running
throughout; prints figures (one "key=value" line, or JSON with --json).

  bench/flood.py URL keepalive [--conns N] [--per-address N] [--seconds S]
  bench/flood.py URL half      [--conns N] [--per-address N]
  bench/flood.py URL slow      [--conns N] [--per-address N] [--seconds S] [--interval S]

keepalive: N keep-alive clients each send GET /api/health in a loop for S
  seconds (answers, errors, requests/s).
half: N connections each send half a request line and close, as fast as
  possible.
slow: N connections send their headers one byte every --interval seconds
  for S seconds (slowloris); reports how many the server closed, and when.

Attack connections come from 127.0.0.2 and up (--per-address of them per
address, so that a per-address limit can be tested on loopback); the
prober asks GET /api/health from 127.0.0.1 on a new connection every 0.2 s
(1 s timeout) and goes on after the attack until it gets an answer
(at most --recover seconds). Loopback only: the URL's host must be 127.0.0.1.
"""
import argparse
import asyncio
import json
import multiprocessing
import sys
import time
from urllib.parse import urlsplit

REQ = b"GET /api/health HTTP/1.1\r\nHost: fabroute\r\n\r\n"


def source(i, per):
    return "127.0.0.%d" % (2 + (i // per if per else 0))


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


async def probe_once(host, port):
    t0 = time.monotonic()
    try:
        r, w = await asyncio.wait_for(asyncio.open_connection(host, port, local_addr=("127.0.0.1", 0)), 1)
        try:
            w.write(REQ)
            st = await asyncio.wait_for(read_answer(r), 1)
        finally:
            w.close()
        return st == 200, time.monotonic() - t0
    except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError, IndexError):
        return False, time.monotonic() - t0


def prober_main(host, port, stop, conn):
    """In its own process, so that the attack's client load does not slow the probes."""
    async def run():
        ok = failed = 0
        worst = 0.0
        while not stop.is_set():
            good, dt = await probe_once(host, port)
            ok += good
            failed += not good
            worst = max(worst, dt)
            await asyncio.sleep(max(0, 0.2 - dt))
        conn.send((ok, failed, worst))
    asyncio.run(run())


async def recover(host, port, limit):
    """Seconds until a health check is answered after the attack (None: never)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        good, _ = await probe_once(host, port)
        if good:
            return round(time.monotonic() - t0, 3)
        await asyncio.sleep(0.1)
    return None


async def keepalive(a, host, port, out):
    stats = {"answers": 0, "errors": 0, "refused": 0}
    end = time.monotonic() + a.seconds

    async def client(i):
        while time.monotonic() < end:
            try:
                r, w = await asyncio.open_connection(host, port, local_addr=(source(i, a.per_address), 0))
            except OSError:
                stats["refused"] += 1
                await asyncio.sleep(0.05)
                continue
            try:
                while time.monotonic() < end:
                    w.write(REQ)
                    st = await asyncio.wait_for(read_answer(r), max(0.1, end - time.monotonic()))
                    stats["answers" if st == 200 else "errors"] += 1
            except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError):
                stats["errors"] += 1
                await asyncio.sleep(0.05)
            finally:
                w.close()

    await asyncio.gather(*(client(i) for i in range(a.conns)))
    out.update(stats)
    out["requests_per_s"] = round(stats["answers"] / a.seconds)


async def half(a, host, port, out):
    t0 = time.monotonic()
    done = failed = 0
    sem = asyncio.Semaphore(200)

    async def one(i):
        nonlocal done, failed
        async with sem:
            try:
                r, w = await asyncio.wait_for(
                    asyncio.open_connection(host, port, local_addr=(source(i, a.per_address), 0)), 2)
                w.write(b"GET /api/hea")
                await w.drain()
                w.close()
                done += 1
            except (OSError, asyncio.TimeoutError):
                failed += 1

    await asyncio.gather(*(one(i) for i in range(a.conns)))
    out.update({"sent": done, "connect_failed": failed, "attack_s": round(time.monotonic() - t0, 3)})


async def slow(a, host, port, out):
    opened, closed_at = 0, []
    t0 = time.monotonic()
    end = t0 + a.seconds

    async def one(i):
        nonlocal opened
        try:
            r, w = await asyncio.wait_for(
                asyncio.open_connection(host, port, local_addr=(source(i, a.per_address), 0)), 2)
        except (OSError, asyncio.TimeoutError):
            return
        opened += 1
        try:
            for b in REQ[:-2]:	# never the final CRLF
                if time.monotonic() >= end:
                    return
                w.write(bytes([b]))
                await w.drain()
                try:	# the server closing shows as EOF here
                    if await asyncio.wait_for(r.read(1), a.interval) == b"":
                        closed_at.append(time.monotonic() - t0)
                        return
                except asyncio.TimeoutError:
                    pass
        except OSError:
            closed_at.append(time.monotonic() - t0)
        finally:
            w.close()

    await asyncio.gather(*(one(i) for i in range(a.conns)))
    out.update({"opened": opened, "closed_by_server": len(closed_at),
                "closed_within_1s": sum(t < 1 for t in closed_at),
                "first_close_s": round(min(closed_at), 2) if closed_at else None,
                "last_close_s": round(max(closed_at), 2) if closed_at else None})


async def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("url")
    p.add_argument("mode", choices=["keepalive", "half", "slow"])
    p.add_argument("--conns", type=int, default=300)
    p.add_argument("--per-address", type=int, default=0, help="attack connections per source address (0: all from 127.0.0.2)")
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--interval", type=float, default=1)
    p.add_argument("--recover", type=float, default=10)
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    u = urlsplit(a.url)
    if u.hostname != "127.0.0.1":
        sys.exit("flood.py: loopback only: the URL's host must be 127.0.0.1")
    host, port = u.hostname, u.port
    stop = multiprocessing.Event()
    parent, child = multiprocessing.Pipe()
    prober = multiprocessing.Process(target=prober_main, args=(host, port, stop, child))
    prober.start()
    out = {"mode": a.mode, "conns": a.conns}
    await {"keepalive": keepalive, "half": half, "slow": slow}[a.mode](a, host, port, out)
    stop.set()
    ok, failed, worst = parent.recv()
    prober.join()
    out.update({"probes_ok": ok, "probes_failed": failed, "probe_max_s": round(worst, 3),
                "recovery_s": await recover(host, port, a.recover)})
    print(json.dumps(out) if a.json else " ".join("%s=%s" % kv for kv in out.items()))


if __name__ == "__main__":
    asyncio.run(main())
