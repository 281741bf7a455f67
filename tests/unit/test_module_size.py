"""One module, one job (issue #24): no module of the product is over ``MAX_LINES`` lines.

A module that grows past it holds two jobs; split it by job (as scholar.store.library.transact and
scholar.services.library.index_catchup were split from the store and the index) rather than raising the number.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 450


def test_no_module_of_the_product_is_over_the_limit():
    modules = [*(ROOT / "shared").rglob("*.py"), *(ROOT / "functions").rglob("*.py")]
    sizes = {str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines()) for path in modules}

    assert len(sizes) > 100  # the tree was found
    assert {path: lines for path, lines in sizes.items() if lines > MAX_LINES} == {}
