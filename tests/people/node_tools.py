"""Node packages for the checks that need an official JavaScript parser (Mermaid), installed on first use.

They go into ``.cache/node`` (gitignored) with exact versions; a machine without node/npm or without the
npm registry skips the tests that need them, with a message saying why.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.people.installs import one_install_at_a_time

REPO = Path(__file__).resolve().parents[2]
NODE_DIR = REPO / ".cache" / "node"
PACKAGES = ("mermaid@11.17.2", "jsdom@26.1.0")
MERMAID_CHECK = Path(__file__).with_name("mermaid_check.mjs")


def node_packages() -> Path:
    """The folder whose node_modules holds PACKAGES; skips the test when they cannot be installed."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.skip("node/npm not found: the Mermaid check needs the official mermaid package")
    with one_install_at_a_time():  # another worker may be installing them right now
        if not all((NODE_DIR / "node_modules" / p.rsplit("@", 1)[0] / "package.json").is_file() for p in PACKAGES):
            NODE_DIR.mkdir(parents=True, exist_ok=True)
            done = subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--prefix", str(NODE_DIR), *PACKAGES],
                capture_output=True, text=True, timeout=300, check=False,
            )
            if done.returncode != 0:
                pytest.skip(f"npm install {' '.join(PACKAGES)} failed: {done.stderr.strip()[-300:]}")
        script = NODE_DIR / MERMAID_CHECK.name
        if not script.is_file() or script.read_bytes() != MERMAID_CHECK.read_bytes():
            shutil.copyfile(MERMAID_CHECK, script)  # beside node_modules, so `import 'mermaid'` resolves there
    return NODE_DIR


def parse_mermaid(texts: list[str]) -> list[dict]:
    """Each diagram parsed by mermaid itself: ``{"ok": True, "type": ...}`` or ``{"ok": False, "error": ...}``."""
    script = node_packages() / MERMAID_CHECK.name
    done = subprocess.run(
        ["node", str(script)], input=json.dumps(texts), capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(done.stdout)
