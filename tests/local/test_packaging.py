"""Packaging as the ecosystem expects: the MCP Bundle manifest passes ``mcpb validate``, server.json describes the
PyPI package and the hosted remote and matches the README's ``mcp-name:`` line. The installed wheel itself, run from
outside the checkout, is tests/packaging/."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib

import pytest

from tests.fixtures.servers import REPO

NPX = shutil.which("npx")
MCPB = "@anthropic-ai/mcpb@2.1.2"
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


@pytest.mark.skipif(NPX is None, reason="npx (Node.js) is not installed: mcpb cannot run")
def test_the_bundle_manifest_passes_mcpb_validate():
    done = subprocess.run([NPX, "-y", MCPB, "validate", str(REPO / "manifest.json")], capture_output=True,
                          text=True, timeout=240, check=False)

    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "passes" in done.stdout


def test_server_json_offers_the_pypi_package_over_stdio_beside_the_hosted_remote():
    server = json.loads((REPO / "server.json").read_text())
    manifest = json.loads((REPO / "manifest.json").read_text())

    assert server["$schema"].endswith("/2025-12-11/server.schema.json")
    package = server["packages"][0]
    assert (package["registryType"], package["identifier"]) == ("pypi", PROJECT["name"])
    assert package["version"] == server["version"] == PROJECT["version"] == manifest["version"]
    assert package["transport"] == {"type": "stdio"}
    assert PROJECT["name"] in PROJECT["scripts"]  # `uvx <identifier>` runs the script named after the package
    assert server["remotes"][0]["type"] == "streamable-http"
    assert f"mcp-name: {server['name']}" in (REPO / "README.md").read_text()
