"""A real headless Chromium that the page tests drive as a person would: open a page, click, type, press keys,
read what is shown, take a screenshot.

It speaks the DevTools protocol over ``--remote-debugging-pipe`` (JSON messages ended by a NUL byte, read
by the browser on its fd 3, answered on its fd 4). Written here because the project keeps no browser driver:
selenium needs a chromedriver and playwright a browser build of its own; Debian's chromium, which
``scripts/bootstrap.sh`` installs, answers the protocol itself, and the tests need only the few commands below.
"""
from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from core.settings import PROJECT_ROOT

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
SCREENSHOTS = PROJECT_ROOT / "build" / "screenshots"  # build/ is ignored by git; the closing notes show these
WINDOW = (1100, 900)  # pixels: a laptop's browser window
ANSWER_SECONDS = 60  # the longest the browser may take to answer one command on a loaded two-core machine
SHOWN_SECONDS = 90  # the longest a page may take to show what a test waits for (a first search loads models)
POLL_SECONDS = 0.1  # between two looks at the page while waiting
FIRST_SPARE_FD = 10  # pipe ends are moved this high, clear of the fds 3 and 4 the browser reads and writes
LOG_CHARS = 2000  # of the browser's own messages, in the error when it stops: the reason, not its whole log
KEY_CODES = {"Enter": 13, "Escape": 27, "ArrowUp": 38, "ArrowDown": 40, "Tab": 9}


class BrowserError(RuntimeError):
    """The browser refused a command, or did not answer it."""


class Browser:
    """One headless Chromium with a fresh profile; ``page()`` opens a tab in a context of its own. Use as a
    context manager; the tests share one for the session (``tests/api/conftest.py``)."""

    def __init__(self):
        assert BROWSER, "chromium is installed by scripts/bootstrap.sh"
        commands_read, self._commands = os.pipe()
        self._answers, answers_write = os.pipe()
        # Above 4, so that moving one pipe end to fd 3 or 4 cannot overwrite the other before it is moved.
        dropped = (commands_read, answers_write)
        commands_read, answers_write = (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, FIRST_SPARE_FD) for fd in dropped)
        self._profile = tempfile.TemporaryDirectory(prefix="evident-chromium-")
        self._log = open(Path(self._profile.name) / "stderr.log", "wb")
        width, height = WINDOW
        # bash (dash takes no fd above 9) only moves the two pipe ends to fds 3 and 4 and becomes the browser.
        self._process = subprocess.Popen(
            ["/bin/bash", "-c", f'exec "$0" "$@" 3<&{commands_read} 4>&{answers_write}', BROWSER, "--headless",
             "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
             f"--user-data-dir={self._profile.name}", f"--window-size={width},{height}", "about:blank"],
            pass_fds=(commands_read, answers_write), stdout=subprocess.DEVNULL, stderr=self._log)
        for fd in (commands_read, answers_write, *dropped):
            os.close(fd)
        self._buffer = b""
        self._last_id = 0
        self.events: list[dict] = []

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (BrowserError, OSError):
            self._process.kill()
        self._process.wait(timeout=ANSWER_SECONDS)
        os.close(self._commands)
        os.close(self._answers)
        self._log.close()
        self._profile.cleanup()

    def send(self, method: str, session: str | None = None, **params) -> dict:
        """One command; returns its result. Events that arrive meanwhile are kept in ``events``."""
        self._last_id += 1
        message = {"id": self._last_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        try:
            os.write(self._commands, json.dumps(message).encode() + b"\0")
        except BrokenPipeError:
            raise self._stopped() from None
        while True:
            reply = self._receive()
            if reply.get("id") == self._last_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def _receive(self, wait: float = ANSWER_SECONDS) -> dict | None:
        """The next message; None when none is whole after ``wait`` seconds (an error after ANSWER_SECONDS)."""
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._answers], [], [], wait)
            if not ready and wait < ANSWER_SECONDS:
                return None
            chunk = os.read(self._answers, 1 << 20) if ready else b""
            if not chunk:
                raise self._stopped()
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def _stopped(self) -> BrowserError:
        said = (Path(self._profile.name) / "stderr.log").read_text(errors="replace")[-LOG_CHARS:]
        return BrowserError(f"the browser stopped answering (exit status {self._process.poll()}); it said: {said}")

    def collect_events(self) -> None:
        """Keep the events that arrive within POLL_SECONDS."""
        while (event := self._receive(POLL_SECONDS)) is not None:
            self.events.append(event)

    def page(self) -> "Page":
        """A tab in a browser context of its own: no cookie, storage or cache of another tab's reaches it, so
        one browser serves every test as a fresh one would. ``Page.close`` ends both."""
        context = self.send("Target.createBrowserContext")["browserContextId"]
        target = self.send("Target.createTarget", url="about:blank", browserContextId=context)["targetId"]
        session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        page = Page(self, session, context)
        page.send("Page.enable")
        return page


class Page:
    """A tab: everything a test does to a page and reads from it."""

    def __init__(self, browser: Browser, session: str, context: str):
        self.browser = browser
        self.session = session
        self.context = context

    def close(self) -> None:
        """Close the tab and its browser context, and forget its events."""
        self.browser.send("Target.disposeBrowserContext", browserContextId=self.context)
        self.browser.events = [e for e in self.browser.events if e.get("sessionId") != self.session]

    def send(self, method: str, **params) -> dict:
        return self.browser.send(method, self.session, **params)

    def _events(self, method: str) -> list[dict]:
        return [e for e in self.browser.events if e.get("method") == method and e.get("sessionId") == self.session]

    def open(self, url: str) -> None:
        """Load ``url`` and wait for its load event (deferred scripts have run by then)."""
        loads = len(self._events("Page.loadEventFired"))
        self.send("Page.navigate", url=url)
        self.wait_for(lambda: len(self._events("Page.loadEventFired")) > loads, f"{url} loaded")

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        reply = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in reply:
            raise BrowserError(f"{expression}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def wait_for(self, condition, what: str):
        """Look until ``condition`` (a JavaScript expression, or a function) is truthy; returns its value. The
        first look comes at once: what the page already shows costs no wait for further events."""
        deadline = time.monotonic() + SHOWN_SECONDS
        while True:
            value = self.evaluate(condition) if isinstance(condition, str) else condition()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"the page never showed: {what}")
            self.browser.collect_events()

    def click(self, selector: str) -> None:
        """A mouse click in the middle of the element, as a person clicks it."""
        box = self.evaluate(f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                            f".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()")
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def type(self, text: str) -> None:
        self.send("Input.insertText", text=text)

    def press(self, key: str) -> None:
        code = KEY_CODES[key]
        text = {"text": "\r"} if key == "Enter" else {}
        self.send("Input.dispatchKeyEvent", type="keyDown", key=key, code=key, windowsVirtualKeyCode=code, **text)
        self.send("Input.dispatchKeyEvent", type="keyUp", key=key, code=key, windowsVirtualKeyCode=code)

    def hold_navigations(self) -> None:
        """From now on a page the tab would go to is not loaded: ``navigations()`` lists what was asked for."""
        self.send("Fetch.enable", patterns=[{"urlPattern": "*", "resourceType": "Document"}])

    def release_navigations(self) -> None:
        """Pages load again, as before ``hold_navigations``."""
        self.send("Fetch.disable")

    def navigations(self) -> list[str]:
        asked = self._events("Fetch.requestPaused")
        for event in asked:
            if not event.setdefault("answered", False):
                self.send("Fetch.failRequest", requestId=event["params"]["requestId"], errorReason="Aborted")
                event["answered"] = True
        return [e["params"]["request"]["url"] for e in asked]

    def screenshot(self, name: str, whole_page: bool = False) -> Path:
        """A PNG of what the tab shows (or of the whole page, scrolled or not), in ``SCREENSHOTS``."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / name
        area = {}
        if whole_page:
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            area = {"clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1},
                    "captureBeyondViewport": True}
        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot", format="png", **area)["data"]))
        return path
