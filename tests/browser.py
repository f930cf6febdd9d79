"""A small headless-Chromium driver for the report tests, speaking the Chrome DevTools Protocol (CDP)
over ``--remote-debugging-pipe``.

Why: the report is read by people in a browser; parsing its HTML in Python cannot tell whether a figure
is actually drawn, whether the page throws, or whether it renders blank. This module opens a page the
way a person would and reports what the browser saw.

Why a pipe and only the stdlib: no port to pick or leak, no websocket/selenium/playwright dependency to
install in CI. Chromium reads NUL-terminated JSON commands on its fd 3 and writes NUL-terminated JSON
replies and events on its fd 4.

    >>> with Browser() as browser:                      # doctest: +SKIP
    ...     page = browser.open_page("report/index.html", screenshot="shot.png")
    >>> page.console_errors, page.not_displayed         # doctest: +SKIP
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Browser", "BrowserError", "PageReport", "chromium_binary", "open_page"]

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking")
DEFAULT_TIMEOUT = 20.0  # seconds for any one step; a hang becomes a BrowserError, never a hung test
VIEWPORT = (1280, 900)  # a laptop window, rather than headless Chromium's small default

# What the page shows, gathered in one Runtime.evaluate so that it is one consistent snapshot.
_COLLECT_JS = r"""
(() => {
  const shown = (el) => {
    const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    return {width: r.width, height: r.height, display: s.display, visibility: s.visibility};
  };
  const label = (el) => el.id ? `#${el.id}` : el.outerHTML.slice(0, 80);
  const images = [];
  for (const img of document.querySelectorAll('img')) {
    images.push({kind: 'img', label: img.getAttribute('src') || label(img), complete: img.complete,
                 naturalWidth: img.naturalWidth, ...shown(img)});
  }
  for (const svg of document.querySelectorAll('svg')) {
    if (svg.parentElement && svg.parentElement.closest('svg')) continue;  // only top-level inline SVGs
    images.push({kind: 'svg', label: label(svg), ...shown(svg)});
  }
  const rows = [];
  for (const tr of document.querySelectorAll('tr')) {
    const data = {};
    for (const a of tr.attributes) if (a.name.startsWith('data-')) data[a.name.slice(5)] = a.value;
    if (Object.keys(data).length) rows.push(data);
  }
  return {href: location.href, readyState: document.readyState, title: document.title,
          text: document.body ? document.body.innerText : '', images, rows};
})()
"""


class BrowserError(RuntimeError):
    """Chromium could not be started, died, timed out, or answered a command with an error."""


def chromium_binary() -> str | None:
    """The Chromium on PATH, or None (the browser tests then skip)."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class PageReport:
    """What the browser saw on one page.

    ``images`` holds one dict per ``<img>`` and per top-level inline ``<svg>`` (kind, label, size, computed
    display/visibility and, for ``<img>``, complete/naturalWidth); ``rows`` the ``data-*`` attributes (without
    the ``data-`` prefix, values as strings) of every table row that has some; ``text`` is
    ``document.body.innerText``, i.e. the visible text.
    """

    url: str
    loaded: bool
    ready_state: str
    title: str
    text: str
    console_errors: list[str] = field(default_factory=list)
    images: list[dict[str, Any]] = field(default_factory=list)
    rows: list[dict[str, str]] = field(default_factory=list)
    screenshot: Path | None = None

    @property
    def not_displayed(self) -> list[str]:
        """A line per image or SVG a reader would not see: not loaded, zero-sized, or hidden by CSS."""
        return [f"{im['kind']} {im['label']!r}: {why}" for im in self.images if (why := _why_not_displayed(im))]


def _why_not_displayed(im: dict[str, Any]) -> str:
    if im["kind"] == "img" and not (im.get("complete") and im.get("naturalWidth", 0) > 0):
        return "did not load (complete={complete}, naturalWidth={naturalWidth})".format(**im)
    if im["display"] == "none" or im["visibility"] == "hidden":
        return f"hidden (display={im['display']}, visibility={im['visibility']})"
    if not (im["width"] > 0 and im["height"] > 0):
        return f"zero-sized ({im['width']}x{im['height']})"
    return ""


class Browser:
    """One headless Chromium process driven over CDP pipes; a context manager that always kills it.

    Chromium runs in its own session (process group), so that closing it also ends its renderer and
    helper processes, and with a throw-away ``--user-data-dir``.
    """

    def __init__(self, binary: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.binary = binary or chromium_binary()
        if not self.binary:
            raise BrowserError("no Chromium found on PATH (looked for 'chromium' and 'chromium-browser')")
        self.timeout = timeout
        self._proc: subprocess.Popen | None = None
        self._tmp: tempfile.TemporaryDirectory | None = None
        self._stderr = None
        self._to_chrome = self._from_chrome = -1
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []

    # -- process -------------------------------------------------------------------------------------
    def __enter__(self) -> "Browser":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="theorems-chromium-")
        profile = Path(self._tmp.name) / "profile"
        self._stderr = open(Path(self._tmp.name) / "stderr.log", "w+b")
        cmd_r, cmd_w = os.pipe()  # we write commands to cmd_w; Chromium reads them on its fd 3
        out_r, out_w = os.pipe()  # Chromium writes to its fd 4; we read out_r
        # Move the child's ends above 4, so that the dup2 onto 3 and 4 below cannot overwrite one another.
        child_in = fcntl.fcntl(cmd_r, fcntl.F_DUPFD_CLOEXEC, 5)
        child_out = fcntl.fcntl(out_w, fcntl.F_DUPFD_CLOEXEC, 5)
        os.close(cmd_r)
        os.close(out_w)

        def wire_pipes() -> None:  # runs in the child between fork and exec; dup2 makes 3 and 4 inheritable
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        args = [self.binary, *FLAGS, "--remote-debugging-pipe", f"--user-data-dir={profile}"]
        try:
            # close_fds=False: it would close 3 and 4 after wire_pipes; every other fd Python opened is
            # close-on-exec anyway.
            self._proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self._stderr, stderr=self._stderr,
                                          close_fds=False, preexec_fn=wire_pipes, start_new_session=True)
        except OSError as err:
            for fd in (child_in, child_out, cmd_w, out_r):
                os.close(fd)
            self.close()
            raise BrowserError(f"could not start {self.binary}: {err}") from err
        os.close(child_in)
        os.close(child_out)
        self._to_chrome, self._from_chrome = cmd_w, out_r
        try:
            self.send("Browser.getVersion")  # proves the pipe works before anything else is asked
        except BrowserError:
            self.close()
            raise

    def close(self) -> None:
        """Ask Chromium to quit, then kill its process group; idempotent, never raises."""
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                self.send("Browser.close", timeout=3)
            except BrowserError:
                pass
            try:
                proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                pass
        if proc is not None:
            try:  # the renderer and helpers can outlive the browser process: end the whole group we started
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        for fd in (self._to_chrome, self._from_chrome):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._to_chrome = self._from_chrome = -1
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
        self._proc = None

    def _stderr_tail(self, lines: int = 15) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.flush()
            self._stderr.seek(0)
            text = self._stderr.read().decode(errors="replace")
        except (OSError, ValueError):
            return ""
        # Chromium without a desktop session logs dbus failures by the dozen; they never explain a failure.
        tail = [line for line in text.splitlines() if "dbus" not in line][-lines:]
        return ("\nChromium's stderr (last lines):\n  " + "\n  ".join(tail)) if tail else ""

    def _died(self, what: str) -> BrowserError:
        code = self._proc.poll() if self._proc else None
        state = f"exited with code {code}" if code is not None else "is still running"
        return BrowserError(f"{what}; Chromium ({self.binary}) {state}.{self._stderr_tail()}")

    # -- protocol ------------------------------------------------------------------------------------
    def send(self, method: str, params: dict | None = None, session_id: str | None = None,
             timeout: float | None = None) -> dict[str, Any]:
        """Send one CDP command and return its ``result``; events that arrive meanwhile are kept."""
        if self._to_chrome < 0:
            raise BrowserError(f"{method}: the browser is not running")
        self._next_id += 1
        msg_id = self._next_id
        message: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        if session_id:
            message["sessionId"] = session_id
        data = json.dumps(message).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self._to_chrome, data):]
        except OSError as err:  # BrokenPipeError: Chromium is gone
            raise self._died(f"{method}: could not write to Chromium ({err})") from err
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            reply = self._read_message(deadline, f"the reply to {method}")
            if reply.get("id") == msg_id:
                if "error" in reply:
                    raise BrowserError(f"{method} failed: {reply['error'].get('message')} "
                                       f"({reply['error'].get('data', '')})")
                return reply.get("result", {})
            if "method" in reply:
                self._events.append(reply)

    def wait_for(self, event: str, session_id: str | None = None, since: int = 0,
                 timeout: float | None = None) -> dict[str, Any]:
        """The first ``event`` (for ``session_id``) among the events from index ``since`` on, waiting for it
        up to ``timeout`` seconds."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        i = since
        while True:
            for i in range(i, len(self._events)):
                ev = self._events[i]
                if ev["method"] == event and (session_id is None or ev.get("sessionId") == session_id):
                    return ev
            i = len(self._events)
            message = self._read_message(deadline, f"the event {event}")
            if "method" in message:
                self._events.append(message)

    def events(self, session_id: str | None = None, since: int = 0) -> list[dict[str, Any]]:
        return [e for e in self._events[since:] if session_id is None or e.get("sessionId") == session_id]

    def _read_message(self, deadline: float, waiting_for: str) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._died(f"timed out waiting for {waiting_for}")
            ready, _, _ = select.select([self._from_chrome], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._from_chrome, 1 << 20)
            if not chunk:
                raise self._died(f"Chromium closed its pipe while waiting for {waiting_for}")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    # -- pages ---------------------------------------------------------------------------------------
    def open_page(self, path: str | os.PathLike, screenshot: str | os.PathLike | None = None,
                  timeout: float | None = None, viewport: tuple[int, int] = VIEWPORT) -> PageReport:
        """Load the local file ``path`` in a fresh tab of ``viewport`` (width, height) CSS pixels and report
        what it shows.

        Raises BrowserError if the navigation fails or the load event does not come within ``timeout``.
        Console errors (console.error/assert, uncaught exceptions, error log entries such as a failed
        resource load) are collected from before the navigation on. ``screenshot``: where to save a
        full-page PNG.
        """
        timeout = self.timeout if timeout is None else timeout
        url = Path(path).resolve().as_uri()
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        try:
            session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Runtime", "Log", "Page"):
                self.send(f"{domain}.enable", session_id=session)
            self.send("Emulation.setDeviceMetricsOverride", {"width": viewport[0], "height": viewport[1],
                                                             "deviceScaleFactor": 1, "mobile": False},
                      session_id=session)
            start = len(self._events)  # a load event of about:blank before this point must not count
            nav = self.send("Page.navigate", {"url": url}, session_id=session, timeout=timeout)
            if nav.get("errorText"):
                raise BrowserError(f"navigating to {url} failed: {nav['errorText']}")
            self.wait_for("Page.loadEventFired", session, since=start, timeout=timeout)
            seen = self.evaluate(_COLLECT_JS, session)
            if seen["href"] != url:
                raise BrowserError(f"expected the tab to show {url}, it shows {seen['href']}")
            shot = None
            if screenshot is not None:
                shot = self.screenshot(session, screenshot, timeout=timeout)
            return PageReport(
                url=url, loaded=seen["readyState"] == "complete", ready_state=seen["readyState"],
                title=seen["title"], text=seen["text"], images=seen["images"], rows=seen["rows"],
                console_errors=_console_errors(self.events(session, since=start)), screenshot=shot,
            )
        finally:
            try:
                self.send("Target.closeTarget", {"targetId": target}, timeout=5)
            except BrowserError:
                pass

    def evaluate(self, expression: str, session_id: str) -> Any:
        """The JSON value of ``expression`` in the page; a JavaScript exception becomes a BrowserError."""
        reply = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                               "awaitPromise": True}, session_id=session_id)
        if "exceptionDetails" in reply:
            details = reply["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise BrowserError(f"JavaScript raised: {text}")
        return reply["result"].get("value")

    def screenshot(self, session_id: str, path: str | os.PathLike, timeout: float | None = None) -> Path:
        """Save a PNG of the whole page (beyond the viewport) at ``path``."""
        metrics = self.send("Page.getLayoutMetrics", session_id=session_id)
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        clip = {"x": 0, "y": 0, "width": max(1, size["width"]), "height": max(1, size["height"]), "scale": 1}
        shot = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip},
                         session_id=session_id, timeout=timeout)
        out = Path(path)
        out.write_bytes(base64.b64decode(shot["data"]))
        return out


def _console_errors(events: list[dict[str, Any]]) -> list[str]:
    """One line per console error, uncaught exception or error-level log entry among ``events``."""
    found = []
    for ev in events:
        method, p = ev["method"], ev.get("params", {})
        if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            found.append(f"console.{p['type']}: {args}")
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            found.append(f"uncaught exception: {d.get('exception', {}).get('description') or d.get('text')}")
        elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            entry = p["entry"]
            found.append(f"log ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}".rstrip())
    return found


def open_page(path: str | os.PathLike, screenshot: str | os.PathLike | None = None,
              timeout: float = DEFAULT_TIMEOUT) -> PageReport:
    """Start Chromium, open ``path``, report, and quit: for a one-off look."""
    with Browser(timeout=timeout) as browser:
        return browser.open_page(path, screenshot=screenshot)
