# SPDX-License-Identifier: MIT
"""The dashboard in headless Chromium: load it, act on it, say what it shows.

    web_check.py [--chromium PATH] [--width W] URL OUT.json [ACTION ...]

Loads URL with a fresh profile (cold cache), waits for the page's
"fabroute:ready" performance mark, then runs the actions in turn; after the
load and after each action it records what the page shows (texts of the
cards, panels and topology bar, counts of what the picture draws, script
errors) and writes the list to OUT.json for tests/integration/web.sh to
check. Actions:

    open:UNIT          click the unit box labelled UNIT in the picture
    fabric             click the first breadcrumb (back to the whole fabric)
    find:TEXT          type TEXT in the search box and press Enter
    suggest:TEXT       type TEXT in the search box, wait for the suggestions
    heat:ca|all        choose the heat
    zoom:in|out|fit    press a zoom button
    drag:DX,DY         drag the picture by (DX, DY) pixels with the mouse
    show:N             press the "show" button of the Nth fault listed (from 0)
    trace:SRC,DST      trace a route
    wait:MS            wait (the page polls every 3 s)
    shot:FILE[:SEL]    a PNG of the page, or of the element SEL
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402

OBSERVE = r"""(() => {
  const $ = id => document.getElementById(id), text = id => ($(id) ? $(id).textContent.trim() : null);
  const svg = sel => document.querySelectorAll('#topology ' + sel).length;
  const mark = n => { const e = performance.getEntriesByName(n)[0]; return e ? Math.round(e.startTime) : null; };
  const ids = ['ready-badge', 'epoch-seq', 'engine', 'count-switches', 'count-cas', 'count-nodes', 'vls-used',
    'max-load', 'max-load-sub', 'topo-caption', 'topo-crumbs', 'topo-hover', 'legend-range', 'faults-summary',
    'route-summary', 'vl-verdict', 'topo-results'];
  const o = { marks: { topology: mark('fabroute:topology'), ready: mark('fabroute:ready') }, text: {} };
  for (const id of ids) o.text[id] = text(id);
  o.root = $('topo-root').hidden ? null : text('topo-root');
  o.role = $('role-badge').hidden ? null : { text: text('role-badge'), title: $('role-badge').title };
  o.results_shown = !$('topo-results').hidden;
  o.viewbox = (document.querySelector('#topology svg') || { getAttribute: () => null }).getAttribute('viewBox');
  o.faults = [...document.querySelectorAll('#faults-table tbody tr')].map(tr =>
    [...tr.children].slice(0, 3).map(td => td.textContent.trim()));
  o.events = text('event-table');
  o.svg = { sw: svg('rect.sw'), sw_down: svg('rect.sw.down'), unit: svg('rect.unit'), unit_hurt: svg('rect.unit.hurt'),
    ln: svg('.ln'), ln_down: svg('.ln.down'), found: svg('.found'), root: svg('.root'), route: svg('polyline.route'),
    hosts: [...document.querySelectorAll('#topology text.hostname')].map(t => t.textContent),
    units: [...document.querySelectorAll('#topology rect.unit')].map(r => r.dataset.unit),
    colours: [...new Set([...document.querySelectorAll('#topology line.ln:not(.down)')].map(l => l.getAttribute('stroke')))].length };
  return o;
})()"""


def act(b, action):
    verb, _, arg = action.partition(":")
    if verb == "open":
        b.eval("document.querySelector(`#topology rect.unit[data-unit=${JSON.stringify(%s)}]`)"
               ".dispatchEvent(new MouseEvent('click', {bubbles: true}))" % json.dumps(arg))
    elif verb == "fabric":
        b.eval("document.querySelector('#topo-crumbs .crumb').click()")
    elif verb in ("find", "suggest"):
        b.eval("(() => { const i = document.getElementById('topo-search'); i.focus(); i.value = %s; "
               "i.dispatchEvent(new Event('input')); })()" % json.dumps(arg))
        if verb == "find":
            b.eval("document.getElementById('topo-find').requestSubmit()")
            b.wait("/^found /.test(document.getElementById('topo-hover').textContent) || "
                   "/not in the picture/.test(document.getElementById('topo-hover').textContent)", 10)
        else:
            b.wait("!document.getElementById('topo-results').hidden", 10)
    elif verb == "heat":
        b.eval("document.querySelector('input[name=heat][value=%s]').click()" % arg)
    elif verb == "zoom":
        b.eval("document.getElementById('zoom-%s').click()" % arg)
    elif verb == "drag":
        dx, dy = (float(v) for v in arg.split(","))
        x, y = b.eval("(() => { const t = document.getElementById('topology'); t.scrollIntoView(); "
                      "const r = t.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        for kind, px, py in (("mousePressed", x, y), ("mouseMoved", x + dx / 2, y + dy / 2),
                             ("mouseMoved", x + dx, y + dy), ("mouseReleased", x + dx, y + dy)):
            b.call("Input.dispatchMouseEvent", type=kind, x=px, y=py, button="left",
                   buttons=0 if kind == "mouseReleased" else 1, clickCount=1)
    elif verb == "show":
        b.eval("document.querySelectorAll('#faults-table button')[%d].click()" % int(arg))
    elif verb == "trace":
        src, dst = arg.split(",")
        b.eval("document.getElementById('route-src').value = %s; document.getElementById('route-dst').value = %s;"
               "document.getElementById('route-form').requestSubmit()" % (json.dumps(src), json.dumps(dst)))
        b.wait("document.getElementById('route-summary').textContent.includes(%s)" % json.dumps(dst), 10)
    elif verb == "wait":
        time.sleep(int(arg) / 1000)
    elif verb == "shot":
        path, _, sel = arg.partition(":")
        b.screenshot(path, sel or None)
    else:
        raise SystemExit(f"web_check.py: unknown action '{action}'")
    time.sleep(0.1)


def errors(b):
    out = []
    for e in b.events:
        p = e.get("params", {})
        if e.get("method") == "Runtime.exceptionThrown":
            out.append(p["exceptionDetails"].get("exception", {}).get("description", "exception"))
        elif e.get("method") == "Runtime.consoleAPICalled" and p.get("type") == "error":
            out.append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
    b.events.clear()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"))
    ap.add_argument("--width", type=int, default=1440)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("url")
    ap.add_argument("out")
    ap.add_argument("actions", nargs="*")
    a = ap.parse_args()
    steps = []
    with Browser(a.chromium, timeout=a.timeout) as b:
        b.viewport(a.width, 1000)
        b.goto(a.url)
        b.wait("performance.getEntriesByName('fabroute:ready').length > 0 && "
               "performance.getEntriesByName('fabroute:topology').length > 0", a.timeout)
        steps.append({"action": "load", **b.eval(OBSERVE), "errors": errors(b)})
        for action in a.actions:
            act(b, action)
            steps.append({"action": action, **b.eval(OBSERVE), "errors": errors(b)})
    with open(a.out, "w") as f:
        json.dump(steps, f, indent=1)


if __name__ == "__main__":
    main()
