"""Every tests/e2e package module runs on both backends: its tests imported by a namesake in tests/e2e/local/, or it is
one of the few the local conftest names as the stand-in's only (issue #32)."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.local.conftest import STAND_IN_ONLY

E2E = Path(__file__).resolve().parents[1] / "e2e"


def _modules(folder: Path) -> set[str]:
    return {path.name for path in folder.glob("test_*.py")}


def test_every_package_module_but_the_stand_ins_only_runs_again_on_the_local_backend() -> None:
    assert _modules(E2E) - set(STAND_IN_ONLY) == _modules(E2E / "local")
    assert set(STAND_IN_ONLY) <= _modules(E2E)


def test_each_local_module_imports_only_its_namesakes_tests() -> None:
    for name in _modules(E2E / "local"):
        text = (E2E / "local" / name).read_text()
        lines = [line for line in text.splitlines() if line.startswith(("from", "import"))]
        wanted = f"from tests.e2e.{name.removesuffix('.py')} import *  # noqa: F403  # its tests, run again here"
        assert lines == [wanted], name
