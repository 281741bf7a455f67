"""library_connections after a sync (issue 41): on one machine the keys live in the environment or the keyring, so
the listing is made of the targets the caller synced with, each with its last sync; a dry run is no sync."""

from __future__ import annotations

import pytest

from tests.connectors.test_sync_tools import call

BIB = "@article{a, title = {Developing functional musculoskeletal tissues}, year = {2015}}\n"


@pytest.mark.usefixtures("connections_table")
def test_a_target_synced_with_is_listed_with_its_last_sync_and_a_dry_run_is_not(env, tmp_path, lambda_context):
    env.set(SCHOLAR_BIBTEX_DIR=str(tmp_path))
    (tmp_path / "thesis.bib").write_text(BIB)
    before = call(lambda_context, "library_connections", {})
    call(lambda_context, "library_sync", {"target": "bibtex", "direction": "pull", "collection": "thesis",
                                          "dry_run": True})
    dry = call(lambda_context, "library_connections", {})

    pulled = call(lambda_context, "library_sync", {"target": "bibtex", "direction": "pull", "collection": "thesis"})
    after = call(lambda_context, "library_connections", {})
    other = call(lambda_context, "library_connections", {}, principal="bob")

    assert before["connections"] == [] == dry["connections"]
    assert "error" not in pulled, pulled
    [bibtex] = after["connections"]
    assert (bibtex["target"], bibtex["last_direction"], bibtex["has_key"]) == ("bibtex", "pull", False)
    assert bibtex["last_sync_at"] > 0
    assert other["connections"] == []  # bob's listing is bob's
