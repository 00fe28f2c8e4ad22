"""Pages opened in a real browser: headless Chromium (Debian's `chromium`,
installed by .ci/run) loads a page through a local HTTP server inside a
harness page that waits for it, then reports every image that did not
decode, every relative link that does not resolve and every in-page anchor
with no target; and a screenshot of the page as a reader sees it."""

from __future__ import annotations

import contextlib
import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HARNESS = """<!doctype html><meta charset=utf-8><title>pending</title>
<iframe id=f src="PAGE" style="width:1280px;height:900px"></iframe>
<script>
const f = document.getElementById('f');
f.addEventListener('load', async () => {
  const d = f.contentDocument, bad = [];
  let imgs = 0, links = 0, anchors = 0;
  for (const im of d.images) {
    imgs++;
    if (!im.complete) await new Promise(r => { im.onload = im.onerror = r; });
    if (!im.naturalWidth) bad.push('image ' + (im.alt || im.src.slice(0, 60)));
  }
  for (const a of d.querySelectorAll('a[href]')) {
    const h = a.getAttribute('href');
    if (h.startsWith('#')) {
      anchors++;
      const id = decodeURIComponent(h.slice(1));
      if (id && !d.getElementById(id)) bad.push('anchor ' + h);
      continue;
    }
    if (/^[a-z]+:/i.test(h)) continue;  // another site: not ours to check offline
    links++;
    const u = new URL(h, f.contentWindow.location.href);
    u.hash = '';
    try { const r = await fetch(u); if (!r.ok) bad.push('link ' + h + ' (' + r.status + ')'); }
    catch (e) { bad.push('link ' + h + ' (' + e + ')'); }
  }
  document.title = JSON.stringify({imgs, links, anchors, bad, title: d.title});
});
</script>"""


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def need_chromium() -> str:
    exe = chromium()
    if exe is None:
        if os.environ.get("CCSIM_REQUIRE_BROWSER"):
            pytest.fail(
                "headless Chromium is required (CCSIM_REQUIRE_BROWSER) but not installed: apt-get install chromium"
            )
        pytest.skip("headless Chromium not installed (apt-get install chromium; .ci/run installs it)")
    return exe


@contextlib.contextmanager
def serve(root: Path) -> Iterator[str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a: object) -> None:
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()


def _chromium(exe: str, *args: str) -> str:
    flags = ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"]
    r = subprocess.run([exe, *flags, *args], capture_output=True, text=True, timeout=120)
    return r.stdout


def check_page(root: Path, rel: str, screenshot: Path | None = None) -> dict[str, Any]:
    """Open `root/rel` in headless Chromium: {'imgs', 'links', 'anchors',
    'bad', 'title'}; with `screenshot`, also a PNG of the page."""
    exe = need_chromium()
    harness = root / ".browser-harness.html"
    harness.write_text(HARNESS.replace("PAGE", html.escape(rel)))
    try:
        with serve(root) as base:
            dom = _chromium(exe, "--virtual-time-budget=30000", "--dump-dom", f"{base}/{harness.name}")
            if screenshot is not None:
                screenshot.parent.mkdir(parents=True, exist_ok=True)
                _chromium(exe, f"--screenshot={screenshot}", "--window-size=1280,1800", f"{base}/{rel}")
    finally:
        harness.unlink()
    m = re.search(r"<title>(.*?)</title>", dom, re.S)
    assert m and m.group(1) != "pending", f"the page did not finish loading in Chromium: {dom[:300]}"
    page: dict[str, Any] = json.loads(html.unescape(m.group(1)))
    return page
