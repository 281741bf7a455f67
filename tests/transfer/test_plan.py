"""What a transfer plans for each item, the URLs it accepts, and the sign-in file it keeps (no server)."""

from __future__ import annotations

import anyio
import pytest

from scholar.core.errors import InvalidArgumentError
from scholar.gateway.mcp.remote_auth import SignInFile
from scholar.local.transfer import check_url, missing_pdfs, plan_item
from scholar.store.library.models import LibraryItem, PdfVersion, item_id_for

# Synthetic items in the shape of scholar.store.library.models.LibraryItem (the paper record trimmed to a title).
MINE = LibraryItem(item_id=item_id_for("doi:10.1/a"), collection="reading", ids=["DOI:10.1/a"],
                   paper={"title": "A"}, tags=["x"], notes="n", added_at="2026-01-01T00:00:00Z",
                   updated_at="2026-02-01T00:00:00Z", rev=7)


def pdf(sha: str) -> PdfVersion:
    return PdfVersion(pdf_path=f"pdfs/{sha}.pdf", sha256=sha, size_bytes=1, version="published", pdf_source="url",
                      source_url="https://example.org/a.pdf", kept_at="2026-01-02T00:00:00Z")


def test_an_item_the_target_lacks_is_created_without_the_pdf_records_and_markdown_of_files_it_does_not_hold():
    mine = MINE.model_copy(update={"pdfs": [pdf("a")], "md_path": "md/a.md"})

    outcome, written = plan_item(mine, None)

    assert outcome == "created"
    assert written.pdfs == [] and written.md_path is None
    assert written.model_copy(update={"pdfs": mine.pdfs, "md_path": mine.md_path}) == mine  # every other field
    assert missing_pdfs(mine, None) == mine.pdfs


def test_an_equal_item_is_unchanged_whatever_its_revision_its_pdf_records_and_the_time_a_pdf_stamped_there():
    assert plan_item(MINE, MINE.model_copy(update={"rev": 99})) == ("unchanged", None)
    mine = MINE.model_copy(update={"pdfs": [pdf("a"), pdf("b")], "md_path": "md/a.md"})
    # the target kept "a" itself (its own record, a later kept_at), which stamped its updated_at
    kept_there = MINE.model_copy(update={"pdfs": [pdf("a").model_copy(update={"kept_at": "2026-05-01T00:00:00Z"}),
                                                  pdf("c")], "md_path": "md/c.md",
                                         "updated_at": "2026-05-01T00:00:00Z"})
    assert plan_item(mine, kept_there) == ("unchanged", None)
    assert [p.sha256 for p in missing_pdfs(mine, kept_there)] == ["b"]


def test_a_newer_copy_updates_carrying_only_the_pdf_records_and_markdown_the_target_holds():
    mine = MINE.model_copy(update={"pdfs": [pdf("a")], "md_path": "md/a.md"})
    theirs = MINE.model_copy(update={"tags": ["old"], "updated_at": "2026-01-15T00:00:00Z", "pdfs": [pdf("b")],
                                     "md_path": "md/b.md"})

    outcome, written = plan_item(mine, theirs)

    assert outcome == "updated"
    assert written.tags == ["x"] and [p.sha256 for p in written.pdfs] == ["b"] and written.md_path == "md/b.md"
    assert written.updated_at == mine.updated_at


def test_a_target_copy_changed_there_later_is_kept():
    newer = MINE.model_copy(update={"notes": "changed there", "updated_at": "2026-03-01T00:00:00Z"})
    assert plan_item(MINE, newer) == ("kept_newer", None)


@pytest.mark.parametrize("url", ["https://abc.execute-api.eu-west-1.amazonaws.com/prod/mcp",
                                 "http://127.0.0.1:3000/mcp", "http://localhost:3000/mcp", "http://[::1]:3000/mcp"])
def test_https_anywhere_and_plain_http_on_this_machine_are_accepted(url):
    assert check_url(url) == url


@pytest.mark.parametrize("url", ["http://10.0.0.5/mcp", "ftp://127.0.0.1/mcp", "file:///etc/passwd", "https:///mcp",
                                 "127.0.0.1:3000/mcp"])
def test_other_urls_are_refused_naming_the_field(url):
    with pytest.raises(InvalidArgumentError) as caught:
        check_url(url)
    assert caught.value.field == "url"


def test_the_sign_in_file_is_private_and_a_registration_for_another_port_is_not_offered(tmp_path):
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken  # the SDK's own models

    path = tmp_path / "sign-in" / "server.json"
    first = SignInFile(path, "http://127.0.0.1:5000/callback")
    info = OAuthClientInformationFull(client_id="dcr_1", redirect_uris=["http://127.0.0.1:5000/callback"])
    anyio.run(first.set_client_info, info)
    anyio.run(first.set_tokens, OAuthToken(access_token="a", refresh_token="r"))

    later = SignInFile(path, "http://127.0.0.1:6000/callback")

    assert path.stat().st_mode & 0o777 == 0o600
    assert first.saved_port() == 5000
    assert anyio.run(later.get_client_info) is None  # the SDK registers anew for this run's redirect URI
    assert anyio.run(later.get_tokens).refresh_token == "r"  # the tokens still serve: no new sign-in
    assert anyio.run(SignInFile(path, "http://127.0.0.1:5000/callback").get_client_info).client_id == "dcr_1"
