"""A real browser opens an exported page of a real 679-line pi session (headless Chromium, installed
by ``packaging/system-deps.sh``) with every request sent to a proxy that records it: the page shows
the path's last user message, the newest compaction's summary and the tree as SVG, and asks the
network for nothing. One browser launch (a few seconds)."""

from __future__ import annotations

import html
import json
import re
import shutil
import socket
import subprocess
import threading
from pathlib import Path
from typing import Any

from desktop_app.export import export_file

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "dense-0006.jsonl"  # written by pi (0.73.1 oracle)
#: Chromium's own calls home (update checks, network time, sign-in) switched off, so that whatever
#: reaches the proxy was asked for by the page.
QUIET = [
    "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--disable-default-apps", "--disable-client-side-phishing-detection",
    "--disable-domain-reliability", "--no-pings", "--metrics-recording-only", "--disable-breakpad",
    "--disable-component-extensions-with-background-pages",
    "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,Translate,AutofillServerCommunication",
]
#: What this Chromium still asks for on its own whatever the flags (its component updater and the
#: sign-in check): the browser's traffic, not the page's, so not counted.
BROWSER_OWN = re.compile(r"\b(update\.googleapis\.com|accounts\.google\.com|clients2\.google\.com)[:/]")
_MARKUP = re.compile(r"^(#+\s*|[-*]\s+(\[[ x]\]\s*)?)|`|\*\*")


class RecordingProxy:
    """A proxy on 127.0.0.1 that answers every request with 502 and keeps its first line."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.requests: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    first = conn.recv(4096).split(b"\r\n", 1)[0].decode(errors="replace")
                    conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                except OSError:
                    first = "(a connection)"
                self.requests.append(first)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


def _path_of(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Root → leaf, the leaf being the file's last entry (pi's leaf on open), read here without the engine."""
    by_id = {e["id"]: e for e in lines[1:]}
    out, at = [], lines[-1]["id"]
    while at is not None:
        out.append(by_id[at])
        at = by_id[at].get("parentId")
    return out[::-1]


def _plain_lines(markdown: str) -> list[str]:
    """Lines of ``markdown`` as a reader sees them (markers and code ticks gone), fences left out."""
    out = []
    for line in markdown.split("\n"):
        if line.strip().startswith("```"):
            continue
        text = " ".join(_MARKUP.sub("", line.strip()).split())
        if text:
            out.append(text)
    return out


def _dom_text(dom: str) -> str:
    body = re.sub(r"<style>.*?</style>", " ", dom, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def test_chromium_shows_the_exported_page_of_a_real_session_without_the_network(tmp_path: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium is not None, "chromium is missing: run `make system-deps` (packaging/system-deps.sh installs it)"
    page = tmp_path / "page.html"
    export_file(str(REAL), str(page))
    lines = [json.loads(line) for line in REAL.read_text().splitlines()]
    path = _path_of(lines)
    last_user = [e for e in path if e["type"] == "message" and e["message"]["role"] == "user"][-1]
    newest = [e for e in path if e["type"] == "compaction"][-1]
    proxy = RecordingProxy()
    try:
        run = subprocess.run(
            [
                chromium, "--headless", "--no-sandbox", "--disable-gpu", *QUIET,
                f"--proxy-server=http://127.0.0.1:{proxy.port}", "--proxy-bypass-list=<-loopback>",
                f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=3000",
                "--dump-dom", page.as_uri(),
            ],
            capture_output=True, text=True, timeout=90,
        )
    finally:
        proxy.close()
    assert run.returncode == 0, run.stderr[-2000:]
    dom = run.stdout
    text = _dom_text(dom)
    user_text = "\n".join(b["text"] for b in last_user["message"]["content"] if b.get("type") == "text")
    for line in _plain_lines(user_text):
        assert line in text, f"the last user message's line {line!r} is not on the page"
    for line in _plain_lines(newest["summary"])[:6]:
        assert line in text, f"the newest summary's line {line!r} is not on the page"
    assert "<svg" in dom and dom.count("<rect") > 50  # the tree, drawn inline
    asked = [r for r in proxy.requests if not BROWSER_OWN.search(r)]
    assert asked == [], f"the page asked the network for {asked}"
