"""The Lambda layers ship exactly the versions pyproject.toml pins (one source of versions, checked)."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _requirements(path: Path) -> set[str]:
    lines = (line.split("#")[0].strip() for line in path.read_text().splitlines())
    return {line.lower() for line in lines if line}


def _project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def test_the_deps_layer_pins_the_project_runtime_dependencies():
    scholar = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["scholar"]
    machine_only = scholar["machine-only"]
    elsewhere = {d.lower() for d in machine_only + scholar["scholar-layer"]}
    aws = _project()["optional-dependencies"]["aws"]  # what only the AWS backend needs ships in the layer too
    runtime = {d.lower() for d in [*_project()["dependencies"], *aws]} - elsewhere
    assert _requirements(REPO / "layers/deps/requirements.txt") == runtime
    assert {d.lower() for d in machine_only} <= {d.lower() for d in _project()["dependencies"]}
    assert {d.lower() for d in scholar["scholar-layer"]} <= {d.lower() for d in _project()["dependencies"]}


def test_the_mcp_layer_pins_the_gateway_extra():
    gateway = {d.lower() for d in _project()["optional-dependencies"]["gateway"]}
    assert _requirements(REPO / "layers/mcp/requirements.txt") == gateway


def test_the_auth_layer_pins_the_auth_extra():
    auth = {d.lower() for d in _project()["optional-dependencies"]["auth"]}
    assert _requirements(REPO / "layers/auth/requirements.txt") == auth
