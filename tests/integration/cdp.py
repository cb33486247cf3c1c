# SPDX-License-Identifier: MIT
"""Drive headless Chromium through the DevTools protocol over a pipe.

Chromium started with --remote-debugging-pipe reads protocol commands on
its file descriptor 3 and writes answers and events on 4, each message a
JSON text ended by a NUL byte: no WebSocket, nothing beyond Python's
standard library. Used by tests/integration/web_check.py and
bench/web_render.py.
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--hide-scrollbars", "--remote-debugging-pipe"]


class CdpError(Exception):
    pass


class Browser:
    """One Chromium with a fresh profile (a cold cache) and one page."""

    def __init__(self, chromium, timeout=60, log=None):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="fabroute-cdp.")
        to_chrome, self._w = os.pipe()
        self._r, from_chrome = os.pipe()

        def fds():
            os.dup2(to_chrome, 3)
            os.dup2(from_chrome, 4)

        self.proc = subprocess.Popen(
            [chromium, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            preexec_fn=fds, pass_fds=(3, 4, to_chrome, from_chrome), stdin=subprocess.DEVNULL,
            stdout=log or subprocess.DEVNULL, stderr=log or subprocess.DEVNULL)
        os.close(to_chrome)
        os.close(from_chrome)
        self._buf = b""
        self._id = 0
        self.events = []
        self.session = None
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"],
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Network"):
            self.call(domain + ".enable")
        self.call("Network.setCacheDisabled", cacheDisabled=True)

    def _read(self, deadline):
        while b"\0" not in self._buf:
            if time.monotonic() > deadline:
                raise CdpError("no answer from Chromium in time")
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise CdpError("Chromium closed the pipe")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, **params):
        """Send one command and return its result; events met meanwhile are kept."""
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if self.session:
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise CdpError(f"{method}: {m['error'].get('message')}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def eval(self, expr):
        """The value of a JavaScript expression (promises are awaited)."""
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise CdpError(f"{expr[:60]}: {r['exceptionDetails'].get('text')} "
                           f"{r['exceptionDetails'].get('exception', {}).get('description', '')}")
        return r["result"].get("value")

    def wait(self, expr, timeout=None):
        """Poll @expr until it is truthy; its value, or CdpError."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            v = self.eval(expr)
            if v:
                return v
            if time.monotonic() > deadline:
                raise CdpError(f"timed out waiting for {expr}")
            time.sleep(0.05)

    def viewport(self, width, height):
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def goto(self, url):
        self.call("Page.navigate", url=url)

    def screenshot(self, path, selector=None):
        """A PNG of the whole page, or of the element @selector finds."""
        if selector:
            r = self.eval(f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                          ".getBoundingClientRect(); return [r.x + scrollX, r.y + scrollY, r.width, "
                          "r.height]; })()")
        else:
            m = self.call("Page.getLayoutMetrics")["cssContentSize"]
            r = [0, 0, m["width"], m["height"]]
        clip = {"x": r[0], "y": r[1], "width": r[2], "height": r[3], "scale": 1}
        data = self.call("Page.captureScreenshot", format="png", clip=clip,
                         captureBeyondViewport=True)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.session = None
            self.call("Browser.close")
        except (CdpError, OSError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._w)
        os.close(self._r)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
