"""The guard on PDFs named by path (scholar.web.local_pdf): allowed folders after symlinks, size, magic, backend.

The folders are pytest's; the PDF is a real one from the shared fixtures, copied into the test's own folder (never
into the repository).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scholar.core.config import PDF_FOLDERS_ENV, Settings, load_settings
from scholar.core.errors import ForbiddenError, InvalidArgumentError, NotFoundError, TooLargeError
from scholar.web.local_pdf import OUTSIDE_FOLDERS, allowed_folders, is_local_path, read_local_pdf
from tests.fixtures_dir import fixtures_dir

PDF_NAME = "arxiv_2305.03393v1_page9_only.pdf"


def _settings(allowed: Path, **env: str) -> Settings:
    return load_settings({"SCHOLAR_BACKEND": "local", PDF_FOLDERS_ENV: str(allowed), **env})


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    """(an allowed folder holding a real PDF, a folder beside it that is not allowed)."""
    source = fixtures_dir() / "pdfs" / PDF_NAME
    if not source.is_file():
        pytest.skip(f"the shared fixtures are absent ({source})")
    allowed, other = tmp_path / "papers", tmp_path / "private"
    allowed.mkdir()
    other.mkdir()
    (allowed / "paper.pdf").write_bytes(source.read_bytes())
    (other / "secret.pdf").write_bytes(source.read_bytes())
    return allowed, other


def test_a_pdf_inside_an_allowed_folder_is_read_by_path_tilde_or_file_url(folders, monkeypatch):
    allowed, _ = folders
    monkeypatch.setenv("HOME", str(allowed.parent))
    settings = _settings(allowed)
    expected = (allowed / "paper.pdf").read_bytes()

    for form in (
        str(allowed / "paper.pdf"),
        "~/papers/paper.pdf",
        (allowed / "paper.pdf").as_uri(),
        f"file://localhost{allowed}/paper.pdf",
        f"file://{allowed}/pa%70er.pdf",
    ):
        assert read_local_pdf(form, settings).data == expected, form


def test_a_symlink_in_an_allowed_folder_pointing_out_of_it_is_refused(folders):
    allowed, other = folders
    (allowed / "link.pdf").symlink_to(other / "secret.pdf")

    with pytest.raises(ForbiddenError) as refused:
        read_local_pdf(str(allowed / "link.pdf"), _settings(allowed))
    assert refused.value.reason == OUTSIDE_FOLDERS and PDF_FOLDERS_ENV in refused.value.message


def test_dot_dot_out_of_an_allowed_folder_is_refused(folders):
    allowed, _ = folders

    with pytest.raises(ForbiddenError):
        read_local_pdf(f"{allowed}/../private/secret.pdf", _settings(allowed))


def test_an_allowed_folder_reached_through_a_symlink_is_still_allowed(folders, tmp_path):
    allowed, _ = folders
    (tmp_path / "alias").symlink_to(allowed)

    assert read_local_pdf(str(tmp_path / "alias" / "paper.pdf"), _settings(tmp_path / "alias")).data[:5] == b"%PDF-"


def test_a_file_that_is_not_a_pdf_is_refused(folders):
    allowed, _ = folders
    (allowed / "notes.pdf").write_text("just text, named .pdf")

    with pytest.raises(InvalidArgumentError) as refused:
        read_local_pdf(str(allowed / "notes.pdf"), _settings(allowed))
    assert refused.value.field == "identifier"


def test_a_file_over_the_size_cap_is_refused(folders):
    allowed, _ = folders
    (allowed / "big.pdf").write_bytes(b"%PDF-1.7\n" + b"0" * 4096)

    with pytest.raises(TooLargeError):
        read_local_pdf(str(allowed / "big.pdf"), _settings(allowed, SCHOLAR_PDF_MAX_BYTES="2048"))


def test_a_missing_file_is_not_found_and_a_relative_path_or_remote_file_url_is_invalid(folders):
    allowed, _ = folders
    with pytest.raises(NotFoundError):
        read_local_pdf(str(allowed / "absent.pdf"), _settings(allowed))
    for form in ("file://example.org/etc/paper.pdf", "file:relative.pdf"):
        with pytest.raises(InvalidArgumentError):
            read_local_pdf(form, _settings(allowed))


def test_a_deployment_reads_no_path(folders):
    allowed, _ = folders
    for env in ({"SCHOLAR_BACKEND": "aws"}, {"LAMBDA_TASK_ROOT": "/var/task"}):
        with pytest.raises(ForbiddenError):
            read_local_pdf(str(allowed / "paper.pdf"), _settings(allowed, **env))


def test_several_folders_separate_by_the_path_separator_or_commas_and_default_to_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert allowed_folders(load_settings({})) == (tmp_path.resolve(),)
    both = load_settings({PDF_FOLDERS_ENV: f"{tmp_path / 'a'}:{tmp_path / 'b'},~/c"})
    assert allowed_folders(both) == tuple((tmp_path / n).resolve() for n in "abc")


def test_only_paths_look_like_paths():
    assert all(map(is_local_path, ("/home/me/a.pdf", "~/a.pdf", "~", "FILE:///a.pdf")))
    assert not any(map(is_local_path, ("10.1/x", "arXiv:2101.00001", "mine/ab.pdf", "https://x.org/a.pdf")))
