"""library_sync's file targets through the research family: a .bib and an Obsidian vault on this machine, and
(without a folder, as hosted) a download link to the file or the vault's zip."""

from __future__ import annotations

import io
import zipfile

import pytest

from scholar.core.errors import INVALID_ARGUMENT
from scholar.services.connectors.obsidian import MARKER
from scholar.store.blobs import BlobStore
from scholar.store.library.table import LibraryStore
from tests.connectors.items import epmc_items
from tests.connectors.test_sync_tools import call

pytestmark = pytest.mark.usefixtures("library_table")


@pytest.fixture
def reading():
    items = epmc_items(4, "reading")
    LibraryStore("alice").put_many(items)
    return items


def test_a_bib_file_is_kept_in_step_and_read_back_into_another_collection(reading, env, tmp_path, lambda_context):
    env.set(SCHOLAR_BIBTEX_DIR=str(tmp_path))
    first = call(lambda_context, "library_sync", {"target": "bibtex", "collection": "reading"})
    path = tmp_path / "reading.bib"
    assert first["location"] == str(path) and first["items"]["created"] == 4
    written = path.stat().st_mtime_ns
    again = call(lambda_context, "library_sync", {"target": "bibtex", "collection": "reading"})
    assert again["items"]["unchanged"] == 4 and path.stat().st_mtime_ns == written
    (tmp_path / "imported.bib").write_text(path.read_text())
    pulled = call(lambda_context, "library_sync", {"target": "bibtex", "direction": "pull",
                                                   "collection": "imported"}, principal="bob")
    assert pulled["items"]["created"] == 4
    assert {i.paper["title"] for i in LibraryStore("bob").list_items(collection="imported")[0]} == {
        i.paper["title"] for i in reading}


def test_an_obsidian_vault_gets_one_note_per_item_and_a_rerun_changes_nothing(reading, env, tmp_path,
                                                                               lambda_context):
    env.set(SCHOLAR_OBSIDIAN_VAULT=str(tmp_path))
    first = call(lambda_context, "library_sync", {"target": "obsidian", "collection": "reading"})
    assert first["items"]["created"] == 4 and len(list((tmp_path / "reading").glob("@*.md"))) == 4
    again = call(lambda_context, "library_sync", {"target": "obsidian", "collection": "reading"})
    assert again["items"]["unchanged"] == 4
    refused = call(lambda_context, "library_sync", {"target": "obsidian", "direction": "pull",
                                                    "collection": "reading"})
    assert refused["error"]["code"] == INVALID_ARGUMENT


def test_without_a_vault_folder_the_notes_come_back_as_a_zip_to_download(reading, aws, lambda_context):
    answer = call(lambda_context, "library_sync", {"target": "obsidian", "collection": "reading"})
    assert answer["location"].startswith("https://") and "/exports/" in answer["location"]
    key = next(o["Key"] for o in aws.s3.list_objects_v2(Bucket=aws.bucket)["Contents"] if o["Key"].endswith(".zip"))
    archive = zipfile.ZipFile(io.BytesIO(BlobStore().get(key)))
    names = archive.namelist()
    assert len(names) == 4 and all(n.startswith("@") and n.endswith(".md") for n in names)
    assert archive.read(names[0]).decode().endswith(MARKER + "\n")
