"""Kept PDFs pushed as Zotero attachments: the three-step upload, and ``exists`` when Zotero has the file."""

from __future__ import annotations

import hashlib

from scholar.services.connectors.zotero_map import scholar_id
from scholar.services.connectors.zotero_push import push
from tests.connectors.conftest import run
from tests.connectors.items import epmc_items, with_pdf
from tests.fakes.zotero import PUBLIC_LIBRARY

# A real PDF from the recorded fixtures: the bytes only travel, nobody parses them here.
PDF = "pdfs/arxiv_2305.03393v1_page9_only.pdf"


def _pdf_item(fixture_file):
    data = fixture_file(PDF)
    (item,) = epmc_items(1)
    return with_pdf(item, data, hashlib.sha256(data).hexdigest()), data


def _reader(files: dict[str, bytes]):
    async def read(reference: str) -> bytes | None:
        return files.get(reference)
    return read


def test_a_kept_pdf_is_attached_in_three_steps_and_not_sent_again(fake, client, store, fixture_file):
    item, data = _pdf_item(fixture_file)
    report = run(push(client, store, [item], "reading", read_file=_reader({item.pdfs[0].pdf_path: data})))
    assert report.files == {"uploaded": 1}
    library = fake.libraries[PUBLIC_LIBRARY]
    parent = next(k for k, o in library.items.items() if scholar_id(o["data"]) == item.item_id)
    (attachment,) = [o for o in library.items.values() if o["data"].get("parentItem") == parent]
    assert attachment["data"]["linkMode"] == "imported_file" and attachment["data"]["contentType"] == "application/pdf"
    assert library.files[attachment["key"]] == hashlib.md5(data, usedforsecurity=False).hexdigest()
    steps = [(s.source, s.path) for s in fake.log if s.method == "POST" and "file" in s.path or s.source ==
             "zotero_storage"]
    assert steps == [("zotero", f"/{PUBLIC_LIBRARY}/items/{attachment['key']}/file"), ("zotero_storage", "/"),
                     ("zotero", f"/{PUBLIC_LIBRARY}/items/{attachment['key']}/file")]
    fake.log.clear()
    again = run(push(client, store, [item], "reading", read_file=_reader({item.pdfs[0].pdf_path: data})))
    assert again.files == {} and fake.writes() == []


def test_a_file_zotero_already_holds_is_exists_after_one_request(fake, client, store, fixture_file):
    item, data = _pdf_item(fixture_file)
    run(push(client, store, [item], "reading", read_file=_reader({item.pdfs[0].pdf_path: data})))
    # Our record of the upload was lost (say the process stopped after Zotero registered the file).
    links = store.links("zotero", PUBLIC_LIBRARY)
    store.put_links("zotero", PUBLIC_LIBRARY, [links[item.item_id].model_copy(update={"attachment_md5": None})])
    fake.log.clear()
    report = run(push(client, store, [item], "reading", read_file=_reader({item.pdfs[0].pdf_path: data})))
    assert report.files == {"exists": 1}
    assert [s.source for s in fake.writes()] == ["zotero"]


def test_a_kept_pdf_missing_from_the_artifact_store_is_a_failed_file_not_a_silent_skip(fake, client, store,
                                                                                      fixture_file):
    item, _ = _pdf_item(fixture_file)
    report = run(push(client, store, [item], "reading", read_file=_reader({})))
    assert report.files == {"failed": 1} and report.items.created == 1
    assert any(r.status == "failed" and r.item_id == item.item_id for r in report.results)
