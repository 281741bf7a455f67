"""tools/list answers kept across processes (``scholar mcp``): read back byte for byte, and never once anything they
are made from has changed (the code, a setting, the selection)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError

from scholar.core.catalogue import Selection
from scholar.core.config import load_settings
from scholar.gateway.mcp.server import tools_listing
from scholar.gateway.mcp.stored_listing import KEPT, PACKAGE, StoredListings, code_fingerprint

SECRET = "SCHOLAR_S2_API_KEY"


def _never(*_: object) -> dict:
    raise AssertionError("built although a kept answer was there")


def _fixed(code: str = "code") -> StoredListings:
    return StoredListings(Path("/nonexistent"), fingerprint=lambda: code)


def test_a_kept_answer_is_read_back_as_built_by_the_next_process_without_building(tmp_path):
    selection = Selection("all")
    built = StoredListings(tmp_path).listing(selection, lambda: tools_listing(selection))

    again = StoredListings(tmp_path).listing(selection, _never)  # another process: nothing kept in memory

    assert json.dumps(again) == json.dumps(built)
    assert built == tools_listing(selection) and len(built["tools"]) > 40


def test_any_byte_of_any_file_of_the_package_names_another_answer(tmp_path):
    package = tmp_path / "scholar"
    shutil.copytree(PACKAGE / "core" / "catalogue", package, ignore=shutil.ignore_patterns("__pycache__"))
    before = code_fingerprint(package)
    (package / "__pycache__").mkdir(exist_ok=True)
    (package / "__pycache__" / "spec.cpython-313.pyc").write_bytes(b"compiled")
    unchanged = code_fingerprint(package)
    spec = package / "spec.py"
    spec.write_bytes(spec.read_bytes().replace(b"80_000", b"80_001"))

    assert unchanged == before
    assert code_fingerprint(package) != before
    (package / "spec.py").rename(package / "spec2.py")
    assert len({before, code_fingerprint(package)}) == 2


def test_a_setting_or_the_selection_names_another_answer_but_a_secret_only_by_its_presence():
    store = _fixed()
    plain = load_settings({})

    assert store.key(Selection(), load_settings({"SCHOLAR_READ_ONLY": "true"})) != store.key(Selection(), plain)
    assert store.key(Selection("all"), plain) != store.key(Selection(), plain)
    assert store.key(Selection(toolsets=frozenset({"arxiv"})), plain) != store.key(Selection(), plain)
    one, two = (store.key(Selection(), load_settings({SECRET: value})) for value in ("one", "two"))
    assert one != store.key(Selection(), plain)
    assert one == two
    assert _fixed("other code").key(Selection(), plain) != store.key(Selection(), plain)


def test_the_name_of_an_answer_does_not_depend_on_the_hash_seed():
    probe = ("from scholar.core.catalogue import Selection; from scholar.core.config import load_settings; "
             "from pathlib import Path; from scholar.gateway.mcp.stored_listing import StoredListings; "
             "print(StoredListings(Path('.'), fingerprint=lambda: 'code').key("
             "Selection(toolsets=frozenset({'arxiv', 'books', 'papers', 'patents'})), "
             "load_settings({'SCHOLAR_TOOLSETS': 'arxiv,books,papers,patents', "
             "'SCHOLAR_TEST_ALLOW_HOSTS': 'a,b,c,d'})))")
    keys = {subprocess.run([sys.executable, "-c", probe], env={**os.environ, "PYTHONHASHSEED": seed},
                           capture_output=True, text=True, check=True, timeout=120).stdout for seed in ("1", "2", "3")}

    assert len(keys) == 1 and len(keys.pop().strip()) == 64


def test_a_damaged_answer_is_built_again_and_replaced(tmp_path):
    selection = Selection()
    store = StoredListings(tmp_path)
    path = tmp_path / f"{store.key(selection)}.json"
    path.write_text('{"tools": [')

    built = store.listing(selection, lambda: tools_listing(selection))

    assert json.loads(path.read_text()) == built == tools_listing(selection)


def test_the_folder_keeps_the_newest_answers_only(tmp_path):
    for n in range(KEPT + 3):
        old = tmp_path / f"{n:064x}.json"
        old.write_text("{}")
        os.utime(old, (1_000_000 + n, 1_000_000 + n))

    StoredListings(tmp_path).listing(Selection(), lambda: tools_listing(Selection()))

    kept = sorted(p.name for p in tmp_path.glob("*.json"))
    assert len(kept) == KEPT and f"{0:064x}.json" not in kept and f"{KEPT + 2:064x}.json" in kept


def test_a_refused_selection_or_unreadable_code_stores_nothing(tmp_path):
    def unreadable() -> str:
        raise PermissionError("a file of the package cannot be read")

    with pytest.raises(MCPError):
        StoredListings(tmp_path).listing(Selection("nope"), lambda: tools_listing(Selection("nope")))
    built = StoredListings(tmp_path, fingerprint=unreadable).listing(Selection(), lambda: tools_listing(Selection()))

    assert built == tools_listing(Selection())
    assert list(tmp_path.iterdir()) == []
