"""The file targets: a .bib file kept in step (stable keys, atomic, import back) and an Obsidian vault folder."""

from __future__ import annotations

from scholar.services.connectors.bibtex_file import bib_text, papers_from_bib, write_atomically
from scholar.services.connectors.obsidian import MARKER, write_vault
from tests.connectors.items import arxiv_item, epmc_items


def test_a_bib_file_keeps_every_key_it_gave_when_items_are_added_before_it(tmp_path):
    items = epmc_items(4)
    path = tmp_path / "reading.bib"
    text, new = bib_text(items[2:], None)
    assert new == 2 and write_atomically(path, text)
    first_keys = [line.split("{", 1)[1].rstrip(",") for line in text.splitlines() if line.startswith("@")]
    # the user renamed a key by hand in their .bib: that key is kept too
    path.write_text(path.read_text().replace(first_keys[0], "mykey2024"))
    again, new = bib_text(items, path.read_text())
    keys = [line.split("{", 1)[1].rstrip(",") for line in again.splitlines() if line.startswith("@")]
    assert new == 2 and keys[2:] == ["mykey2024", first_keys[1]] and len(set(keys)) == 4
    assert write_atomically(path, again) and not write_atomically(path, again)
    assert [p.name for p in tmp_path.iterdir()] == ["reading.bib"]  # no temporary file left behind


def test_a_bib_file_reads_back_into_papers_with_their_ids(tmp_path):
    items = [*epmc_items(2), arxiv_item()]
    text, _ = bib_text(items, None)
    papers = papers_from_bib(text)
    assert [p.title for p in papers] == [i.paper["title"] for i in items]
    assert papers[0].externalIds["DOI"].lower() == items[0].paper["externalIds"]["DOI"].lower()
    assert papers[2].externalIds["ArXiv"] == "2312.07559"
    assert papers[0].authors[0].name.split()[-1] == items[0].paper["authors"][0]["name"].split()[-1]


def test_an_obsidian_rerun_keeps_what_the_user_wrote_below_the_marker_and_rewrites_only_changes(tmp_path):
    items = epmc_items(4)[2:]  # two recorded records with abstracts
    first = write_vault(items, tmp_path)
    assert len(first.created) == 2
    note = tmp_path / first.created[0]
    text = note.read_text()
    assert text.startswith("---\ncitekey: ") and "scholar-id: " + items[0].item_id in text and text.endswith(
        MARKER + "\n")
    assert "## Abstract" in text and "- literature-note" in text
    note.write_text(text + "\nMy own thoughts, [[links]] and all.\n")
    changed = items[0].model_copy(update={"notes": "our new note", "paper": items[0].paper | {"title": "Retitled"}})
    second = write_vault([changed, items[1]], tmp_path)
    assert second.updated == [note.name] and second.unchanged == [first.created[1]] and second.created == []
    after = note.read_text()
    assert "## Notes\n\nour new note" in after and "title: Retitled" in after
    assert after.endswith(MARKER + "\n\nMy own thoughts, [[links]] and all.\n")


def test_an_obsidian_dry_run_counts_what_would_change_and_writes_nothing(tmp_path):
    items = epmc_items(3)
    write_vault(items[:1], tmp_path)
    before = {p.name: p.read_text() for p in tmp_path.iterdir()}
    changed = items[0].model_copy(update={"notes": "new"})
    plan = write_vault([changed, *items[1:]], tmp_path, dry_run=True)
    assert (len(plan.created), len(plan.updated), plan.unchanged) == (2, 1, [])
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == before
