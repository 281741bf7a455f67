"""Packaging as the ecosystem expects: the MCP Bundle manifest passes ``mcpb validate``, server.json describes the
PyPI package and the hosted remote and matches the README's ``mcp-name:`` line, and ``pip install .`` into a fresh
virtual environment gives a ``scholar`` that serves MCP over stdio from the installed copy."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.fixtures.servers import REPO
from tests.local.conftest import Machine

NPX = shutil.which("npx")
MCPB = "@anthropic-ai/mcpb@2.1.2"
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
# The build backend, for an offline build without isolation: the tools environment's setuptools (make tools).
# Beside the virtualenv running the suite (.venv and .tools are siblings in a checkout).
TOOLS_SITE = sorted((Path(sys.prefix).parent / ".tools" / "lib").glob("python3*/site-packages"))


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


def test_pip_install_into_a_fresh_venv_gives_a_scholar_that_serves_stdio(machine: Machine, tmp_path):
    # Given a fresh venv that sees this environment's dependencies but not this checkout
    if not TOOLS_SITE:
        pytest.skip("no setuptools to build with offline (make tools creates .tools)")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "zz_deps.pth").write_text(f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    build = site / "zz_build.pth"  # setuptools for the build only, gone before anything runs
    build.write_text(f"import site; site.addsitedir({str(TOOLS_SITE[0])!r})\n")

    # When it installs the checkout the way a user does (no deps: there is no network here)
    clean = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index", str(REPO)],
                   check=True, timeout=300, capture_output=True, env=clean)
    build.unlink()
    env = {name: value for name, value in machine.child_env().items() if name != "PYTHONPATH"}
    imported = subprocess.run([python, "-c", "import scholar; print(scholar.__file__)"], capture_output=True,
                              text=True, check=True, cwd=tmp_path, env=env).stdout.strip()

    async def listing() -> set[str]:
        with anyio.fail_after(180):
            # the embedded stand-in reads the repository's template.yaml from the working directory
            params = StdioServerParameters(command=str(venv / "bin" / "scholar"), args=["mcp"], env=env, cwd=REPO)
            async with Client(params) as client:
                return {tool.name for tool in (await client.list_tools()).tools}

    # Then the installed copy is the one imported, and its `scholar mcp` answers tools/list
    assert imported.startswith(str(site))
    assert "get_paper" in anyio.run(listing)
