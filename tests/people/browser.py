"""Headless Chromium for the tests (Debian's chromium package, installed on first use where missing).

A machine where it is neither present nor installable skips the browser tests with a message. Console
messages come from Chromium's own log on stderr (``--enable-logging=stderr --v=0``), where each one is a
``CONSOLE`` line; screenshots go to ``.cache/artifacts`` (gitignored), kept after the run.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.people.installs import debian_binary

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / ".cache" / "artifacts"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
         "--enable-logging=stderr", "--v=0")
# e.g. `[..:INFO:CONSOLE:1] "message", source: file:///page.html (1)` (Chromium logs every level as INFO).
_CONSOLE = re.compile(r":[A-Z]+:CONSOLE(?::\d+|\(\d+\))?\] (.*)")


@dataclass(frozen=True)
class Visit:
    dom: str
    console: list[str]  # every console message of the page (errors, CSP refusals, logs)


def chromium() -> str:
    """The chromium binary; skips the test when it is missing and cannot be installed."""
    binary = shutil.which("chromium-browser") or debian_binary("chromium", "chromium")
    if binary is None:
        pytest.skip("headless chromium is not installed and `apt-get install -y chromium` failed here")
    return binary


def _run(url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        argv = [chromium(), *FLAGS, f"--user-data-dir={profile}", *extra, url]
        return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True)


def visit(url: str) -> Visit:
    """The page's DOM after load, and its console messages."""
    done = _run(url, "--dump-dom", "--virtual-time-budget=3000")
    console = [m.group(1) for m in map(_CONSOLE.search, done.stderr.splitlines()) if m]
    return Visit(dom=done.stdout, console=console)


def screenshot(url: str, name: str, size: str = "1200,2400") -> Path:
    """A PNG of the page under .cache/artifacts/<name>."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    _run(url, f"--screenshot={path}", f"--window-size={size}", "--hide-scrollbars")
    return path
