"""A caller's own PDFs and one-time uploads (scholar.store.owned_pdfs, scholar.store.pdf_uploads), on both backends.

The bytes are synthetic (a ``%PDF-`` header and filler): the store checks only the magic and the size, which is all
these tests are about; the real PDFs of the fixtures are read by the end-to-end tests.
"""

from __future__ import annotations

import base64
import hashlib
import json
from functools import partial

import pytest

from scholar.core.backend import current
from scholar.core.errors import InvalidArgumentError, NotFoundError, TooLargeError
from scholar.store import pdf_uploads
from scholar.store.blobs import BlobStore
from scholar.store.owned_pdfs import get_owned_pdf, owned_key, put_owned_pdf
from scholar.store.pdf_uploads import accept_upload, claim_upload, new_upload
from scholar.web.local_pdf import check_pdf
from tests.store.backends import backend_of

PDF = b"%PDF-1.7 synthetic bytes of a caller's own paper"
ALICE, BOB = "key:alice", "key:bob"
CAP = 10_000
CHECK = partial(check_pdf, max_bytes=CAP)  # the tools' check (scholar.web.local_pdf), injected into the store


def test_an_owned_pdf_is_read_back_by_its_owner_and_by_no_one_else_even_with_the_same_bytes(aws):
    ref = put_owned_pdf(ALICE, PDF, source="local", filename="paper.pdf")

    assert ref == f"mine/{hashlib.sha256(PDF).hexdigest()}.pdf"
    assert get_owned_pdf(ALICE, ref) == PDF
    with pytest.raises(NotFoundError):
        get_owned_pdf(BOB, ref)
    assert put_owned_pdf(BOB, PDF, source="upload") == ref  # the same bytes: the same name, another object
    assert owned_key(ALICE, ref[5:-4]) != owned_key(BOB, ref[5:-4])
    assert not BlobStore().exists(f"pdfs/{ref[5:]}")  # never in the shared content-addressed PDFs


def test_an_upload_is_claimed_once_into_the_owners_pdfs_and_names_nothing_for_another_caller(aws):
    pending = new_upload(ALICE, expires_s=60, ticket=True)
    accept_upload(pending.token, PDF, check=CHECK)

    with pytest.raises(NotFoundError):
        claim_upload(BOB, pending.ref, check=CHECK)
    ref = claim_upload(ALICE, pending.ref, check=CHECK)
    assert get_owned_pdf(ALICE, ref) == PDF
    assert claim_upload(ALICE, pending.ref, check=CHECK) == ref  # the same reference keeps naming it
    assert not BlobStore().exists(pending.key)  # moved, not copied


def test_an_upload_ticket_works_once(aws):
    pending = new_upload(ALICE, expires_s=60, ticket=True)
    accept_upload(pending.token, PDF, check=CHECK)

    with pytest.raises(NotFoundError):
        accept_upload(pending.token, PDF, check=CHECK)


def test_an_expired_ticket_is_refused(aws):
    pending = new_upload(ALICE, expires_s=-1, ticket=True)

    with pytest.raises(NotFoundError):
        accept_upload(pending.token, PDF, check=CHECK)


def test_an_upload_over_the_cap_or_not_a_pdf_is_refused_and_spends_its_ticket(aws):
    big = new_upload(ALICE, expires_s=60, ticket=True)
    with pytest.raises(TooLargeError):
        accept_upload(big.token, PDF + b"x" * CAP, check=CHECK)
    text = new_upload(ALICE, expires_s=60, ticket=True)
    with pytest.raises(InvalidArgumentError):
        accept_upload(text.token, b"<html>not a pdf</html>", check=CHECK)
    with pytest.raises(NotFoundError):
        accept_upload(text.token, PDF, check=CHECK)


def test_a_claim_checks_what_arrived_by_a_presigned_post_and_removes_a_bad_one(aws):
    # Hosted, S3 took the body (its policy caps the size); the claim still checks the magic and the cap.
    pending = new_upload(ALICE, expires_s=60, ticket=False)
    BlobStore().put(pending.key, b"MZ not a pdf")

    with pytest.raises(InvalidArgumentError):
        claim_upload(ALICE, pending.ref, check=CHECK)
    assert not BlobStore().exists(pending.key)
    oversized = new_upload(ALICE, expires_s=60, ticket=False)
    BlobStore().put(oversized.key, PDF + b"x" * CAP)
    with pytest.raises(TooLargeError):
        claim_upload(ALICE, oversized.ref, check=CHECK)


def test_nothing_uploaded_yet_is_not_found(aws):
    with pytest.raises(NotFoundError):
        claim_upload(ALICE, new_upload(ALICE, expires_s=60, ticket=False).ref, check=CHECK)


def test_the_upload_server_is_known_only_where_one_was_started(aws):
    assert pdf_uploads.upload_base() is None
    pdf_uploads.serve_uploads_at("http://127.0.0.1:1234")
    try:
        assert pdf_uploads.upload_base() == "http://127.0.0.1:1234"
    finally:
        current().replace_state(pdf_uploads.SERVED_AT, None)  # the environment backend outlives this test


def test_the_hosted_upload_link_is_a_post_whose_signed_policy_caps_the_size(aws):
    if backend_of(aws) == "local":
        pytest.skip("a fact of S3: the local backend takes uploads on scholar serve's endpoint")
    pending = new_upload(ALICE, expires_s=60, ticket=False)
    url, fields = BlobStore().presign_upload(pending.key, max_bytes=CAP, expires_s=60)

    policy = json.loads(base64.b64decode(fields["policy"]))
    # moto's server stores an oversized POST all the same: the cap S3 enforces is this signed condition (and the
    # claim's own check above); the key is the caller's pending key and nothing else.
    assert ["content-length-range", 1, CAP] in policy["conditions"]
    assert fields["key"] == pending.key and pending.key.startswith("pending/") and url
