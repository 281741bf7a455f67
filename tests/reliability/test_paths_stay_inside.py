"""Every file a connector writes stays inside its folder (issue #40 item 2), whatever the collection is called.

Through library_sync as a caller meets it (the research family's handler), on this machine's folders
(``SCHOLAR_OBSIDIAN_VAULT``, ``SCHOLAR_BIBTEX_DIR``): for each hostile name in the table, either the push writes
inside the folder or it is refused as ``invalid_argument`` naming ``collection``; nothing appears beside the folder.
Before the fix, ``a/../../bibescape`` wrote ``<vault>/../bibescape/@….md``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scholar.core.errors import INVALID_ARGUMENT, InvalidArgumentError
from scholar.services.connectors.obsidian import write_vault
from scholar.services.connectors.paths import inside
from scholar.store.library.table import LibraryStore
from tests.connectors.items import epmc_items
from tests.connectors.test_sync_tools import call

pytestmark = pytest.mark.usefixtures("library_table")

# Every name here is a valid collection name (the library's pattern: a letter or digit, then letters, digits,
# space . _ - /), and each would leave the folder if it were joined to it as a path.
HOSTILE = [
    "a/../../bibescape",
    "a/..",
    "a/../..",
    "a/./../../bibescape",
    "x/../../../../bibescape",
    "a/../../vault/../bibescape",
    "a/b/../../../bibescape",
    "a//../../bibescape",
]


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file() or p.is_symlink()}


@pytest.fixture
def folders(env, tmp_path):
    env.set(SCHOLAR_OBSIDIAN_VAULT=str(tmp_path / "box" / "vault"), SCHOLAR_BIBTEX_DIR=str(tmp_path / "box" / "bib"))
    (tmp_path / "box" / "vault").mkdir(parents=True)
    (tmp_path / "box" / "bib").mkdir()
    return tmp_path


@pytest.mark.parametrize("target", ["obsidian", "bibtex"])
@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_collection_name_writes_inside_the_folder_or_is_refused(folders, lambda_context, target, name):
    LibraryStore("alice").put_many(epmc_items(2, name))
    answer = call(lambda_context, "library_sync", {"target": target, "collection": name})
    folder = folders / "box" / ("vault" if target == "obsidian" else "bib")
    if "error" in answer:
        assert answer["error"]["code"] == INVALID_ARGUMENT, answer
        assert answer["error"]["details"]["field"] == "collection"
    else:
        assert answer["items"]["created"] == 2 and Path(answer["location"]).resolve().is_relative_to(folder)
    outside = {p for p in _files(folders) if not p.resolve().is_relative_to(folder)}
    assert outside == set(), outside
    assert not (folders / "box" / "bibescape").exists()


def test_a_collection_folder_that_is_a_link_out_of_the_vault_is_refused(folders, lambda_context):
    (folders / "outside").mkdir()
    (folders / "box" / "vault" / "linked").symlink_to(folders / "outside")
    LibraryStore("alice").put_many(epmc_items(2, "linked"))
    answer = call(lambda_context, "library_sync", {"target": "obsidian", "collection": "linked"})
    assert answer["error"]["code"] == INVALID_ARGUMENT and "outside" in answer["error"]["message"]
    assert list((folders / "outside").iterdir()) == []


def test_a_note_replaced_by_a_link_out_of_the_vault_is_not_written_through(tmp_path):
    items = epmc_items(1)
    vault = tmp_path / "vault"
    (note,) = write_vault(items, vault).created
    secret = tmp_path / "secret.md"
    secret.write_text(f"---\nscholar-id: {items[0].item_id}\n---\n")
    (vault / note).unlink()
    (vault / note).symlink_to(secret)
    with pytest.raises(InvalidArgumentError):
        write_vault([items[0].model_copy(update={"notes": "changed"})], vault)
    assert secret.read_text() == f"---\nscholar-id: {items[0].item_id}\n---\n"


@pytest.mark.parametrize("name", ["..", ".", "../x", "a/../../x", "/etc/x"])
def test_the_guard_refuses_every_path_that_leaves_its_folder(tmp_path, name):
    with pytest.raises(InvalidArgumentError):
        inside(tmp_path / "folder", name)
    assert inside(tmp_path / "folder", "a/../b") == (tmp_path / "folder" / "b").resolve()
