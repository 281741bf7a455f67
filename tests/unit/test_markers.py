"""Every ``# noqa`` and ``# type: ignore`` in the product names what it silences and says why, on its line.

The house forms are ``# noqa: CODE  # why`` and ``# type: ignore[code]  # why`` (STYLE.md, "What to avoid"): a bare
marker silences every rule, and one without its reason cannot be judged when the code around it changes. Markers
that silence nothing are caught by ruff (RUF100) and mypy (``warn_unused_ignores``), both in pyproject.toml.
Comments are read with ``tokenize``, so a marker quoted in a string is not one.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("shared", "functions")
# Where a marker starts, and the whole form it must have from there.
_START = re.compile(r"#\s*(noqa|type:\s*ignore)\b", re.IGNORECASE)
_FORMS = {
    "noqa": re.compile(r"# noqa: [A-Z]+[0-9]+(?:, [A-Z]+[0-9]+)*  # \S"),
    "type": re.compile(r"# type: ignore\[[a-z-]+(?:, [a-z-]+)*\]  # \S"),
}
PENDING: frozenset[str] = frozenset()  # modules whose markers are still to be mended (none)


def _bad_markers(path: Path, root: Path = ROOT) -> list[str]:
    """``path:line: comment`` (``path`` from ``root``) of each marker in ``path`` not in its house form."""
    found = []
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        for start in _START.finditer(token.string):
            kind = start.group(1).lower()[:4]
            if not _FORMS[kind].match(token.string, start.start()):
                found.append(f"{path.relative_to(root)}:{token.start[0]}: {token.string}")
    return found


def _product_modules() -> list[Path]:
    return sorted(path for folder in PRODUCT for path in (ROOT / folder).rglob("*.py"))


def test_every_marker_in_the_product_names_its_code_and_gives_its_reason() -> None:
    modules = _product_modules()
    bad = [line for path in modules if str(path.relative_to(ROOT)) not in PENDING for line in _bad_markers(path)]

    assert len(modules) > 100  # the tree was found
    assert bad == [], "write `# noqa: CODE  # why` / `# type: ignore[code]  # why`:\n" + "\n".join(bad)


def test_a_bare_marker_or_one_without_its_reason_is_found(tmp_path: Path) -> None:
    module = tmp_path / "module.py"
    module.write_text(
        "import os  # noqa\n"
        "import re  # noqa: F401\n"
        "import sys  # noqa: F401  # why\n"
        "x: int = ''  # type: ignore\n"
        "y: int = ''  # type: ignore[assignment]  # why\n"
        "z = '# noqa'\n",
        encoding="utf-8",
    )
    bad = _bad_markers(module, root=tmp_path)

    assert [line.split(":")[1] for line in bad] == ["1", "2", "4"]


def test_each_pending_module_still_holds_a_marker_to_fix() -> None:
    clean = [name for name in sorted(PENDING) if not _bad_markers(ROOT / name)]

    assert clean == [], "remove from PENDING: " + ", ".join(clean)
