"""Content-addressed artifacts (scholar.store.blobs)."""

import hashlib
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from scholar.core.errors import UnavailableError
from scholar.store.blobs import BlobStore
from tests.store.backends import backend_of
from tests.store.content import put_pdf

PDF = b"%PDF-1.7 synthetic bytes for a content-addressed key"


def test_an_object_put_is_read_back_whole_with_its_content_type_and_size(aws):
    key = put_pdf(PDF)
    assert key == f"pdfs/{hashlib.sha256(PDF).hexdigest()}.pdf"
    head = aws.s3.head_object(Bucket=aws.bucket, Key=key)
    assert head["ContentType"] == "application/pdf"
    assert BlobStore().get(key) == PDF and BlobStore().size(key) == len(PDF)


def test_a_missing_object_reads_as_none_and_does_not_exist(aws):
    store = BlobStore()
    assert store.get("pdfs/missing.pdf") is None
    assert store.exists("pdfs/missing.pdf") is False


def test_presign_returns_a_get_url_for_the_key(aws):
    store = BlobStore()
    key = put_pdf(PDF)
    url = store.presign(key, expires_s=60)
    parts = urlsplit(url)
    if backend_of(aws) == "local":  # on one machine the link is the file itself
        assert parts.scheme == "file" and parts.path.endswith(key)
        assert Path(parts.path).read_bytes() == PDF
        return
    assert parts.scheme == "https"
    assert key in parts.path or key in parts.netloc + parts.path
    assert aws.bucket in url
    assert "Signature" in parts.query or "X-Amz-Signature" in parts.query


def test_without_a_bucket_the_store_is_unavailable(env):
    env.delete("SCHOLAR_ARTIFACT_BUCKET")
    with pytest.raises(UnavailableError):
        _ = BlobStore().bucket


def _retention(aws, key: str) -> list[dict[str, str]]:
    return aws.s3.get_object_tagging(Bucket=aws.bucket, Key=key)["TagSet"]


def test_pdfs_and_markdown_are_stored_as_cache_and_other_objects_untagged(aws, tmp_path):
    pdf = put_pdf(PDF)
    md = BlobStore().put("md/" + "a" * 64 + ".md", b"# text", "text/markdown")
    upload = tmp_path / "big.pdf"
    upload.write_bytes(PDF + b" uploaded in parts")
    uploaded = BlobStore().put_file(str(upload), "pdfs/" + "b" * 64 + ".pdf", "application/pdf")
    result = BlobStore().put("results/task.json", b"{}", "application/json")
    for key in (pdf, md, uploaded):
        assert _retention(aws, key) == [{"Key": "retention", "Value": "cache"}]
    assert _retention(aws, result) == []


def test_a_retained_object_leaves_the_cache_and_a_missing_one_says_so(aws):
    key = put_pdf(PDF)
    assert BlobStore().retain(key) is True
    assert _retention(aws, key) == [{"Key": "retention", "Value": "kept"}]
    assert BlobStore().retain("pdfs/" + "0" * 64 + ".pdf") is False
