"""The error hierarchy and its envelope (scholar.core.errors, DESIGN §4)."""

import pytest

from scholar.core import errors
from scholar.core.errors import (
    INVALID_ARGUMENT,
    RATE_LIMITED,
    TIMEOUT,
    UPSTREAM_ERROR,
    ForbiddenError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    RateLimitedError,
    ScholarError,
    UnavailableError,
    UpstreamError,
    UpstreamTimeoutError,
    from_envelope,
)

# Every concrete class scholar.core.errors declares (read from the module, so a new class cannot be forgotten here).
ALL_CLASSES = [
    obj
    for obj in vars(errors).values()
    if isinstance(obj, type) and issubclass(obj, ScholarError) and obj is not ScholarError
]


def test_every_error_code_has_exactly_one_class_but_timeout_which_has_the_sources_and_ours():
    by_code: dict[str, set[type]] = {}
    for cls in ALL_CLASSES:
        by_code.setdefault(cls.code, set()).add(cls)
    assert set(by_code) == set(errors.ErrorCode.__args__)
    assert by_code.pop(errors.TIMEOUT) == {errors.UpstreamTimeoutError, errors.WorkTimeoutError}
    assert all(len(classes) == 1 for classes in by_code.values())


def test_a_bare_envelope_holds_code_message_and_retryable_only():
    envelope = NotFoundError("no such paper").to_envelope()
    assert set(envelope) == {"error"}
    body = envelope["error"]
    assert body["code"] == errors.NOT_FOUND
    assert body["retryable"] is False
    assert set(body) == {"code", "message", "retryable", "data"}  # the family adds a not_found hint that fits


def test_an_error_without_a_hint_has_no_recovery_field():
    body = ForbiddenError("refused").envelope_body()
    assert set(body) == {"code", "message", "retryable", "data"}
    assert set(body["data"]) == {"reason", "retryable"}


def test_the_envelope_also_carries_seed_004s_data_with_reason_recovery_and_retryable():
    body = RateLimitedError("slow down", source="s2", hint="wait", reason="quota").envelope_body()
    assert body["data"] == {"reason": "quota", "recovery": {"hint": "wait"}, "retryable": True}


def test_without_a_reason_the_data_reason_is_the_code():
    body = UpstreamError("bad gateway", status=502).envelope_body()
    assert body["data"]["reason"] == errors.UPSTREAM_ERROR
    assert body["data"]["recovery"] == body["recovery"]


def test_optional_fields_appear_in_the_envelope_when_set():
    err = RateLimitedError(
        "slow down", source="s2", status=429, retry_after_s=1.23456, hint="wait", reason="quota", details={"n": 1}
    )
    body = err.envelope_body()
    assert body["code"] == RATE_LIMITED
    assert body["retryable"] is True
    assert body["retry_after_s"] == 1.235
    assert body["source"] == "s2"
    assert body["status"] == 429
    assert body["reason"] == "quota"
    assert body["details"] == {"n": 1}
    assert body["recovery"] == {"hint": "wait"}


def test_the_envelope_message_is_capped():
    body = InternalError("x" * 5000).envelope_body()
    assert len(body["message"]) <= 500


def test_retryable_can_be_overridden_per_error():
    assert UpstreamError("bad request", status=400, retryable=False).retryable is False
    assert InternalError("flaky", retryable=True).envelope_body()["retryable"] is True


def test_a_timeout_is_an_upstream_error_with_its_own_code():
    err = UpstreamTimeoutError("slow", source="crossref")
    assert isinstance(err, UpstreamError)
    assert err.code == TIMEOUT
    assert err.code != UPSTREAM_ERROR


def test_invalid_argument_carries_the_field_as_attribute_and_in_details():
    err = InvalidArgumentError("limit must be at most 100", field="limit", details={"errors": []})
    assert err.field == "limit"
    body = err.envelope_body()
    assert body["code"] == INVALID_ARGUMENT
    assert body["details"] == {"errors": [], "field": "limit"}


def test_invalid_argument_without_a_field_has_no_field_detail():
    err = InvalidArgumentError("bad call")
    assert err.field is None
    assert "details" not in err.envelope_body()


@pytest.mark.parametrize("cls", ALL_CLASSES, ids=lambda c: c.__name__)
def test_from_envelope_rebuilds_the_same_class_and_facts(cls):
    # Our own work's timeout names no source (that is how its envelope differs from a source's timeout).
    source = None if cls is errors.WorkTimeoutError else "openalex"
    original = cls("it failed", source=source, status=503, retry_after_s=2.0, hint="later", reason="why")
    rebuilt = from_envelope(original.to_envelope())
    assert type(rebuilt) is cls
    assert rebuilt.to_envelope() == original.to_envelope()


def test_from_envelope_accepts_the_body_without_the_error_wrapper():
    body = UnavailableError("no bucket").envelope_body()
    assert type(from_envelope(body)) is UnavailableError


def test_from_envelope_keeps_the_field_of_an_invalid_argument():
    rebuilt = from_envelope(InvalidArgumentError("bad", field="offset").to_envelope())
    assert isinstance(rebuilt, InvalidArgumentError)
    assert rebuilt.details["field"] == "offset"
    assert rebuilt.field == "offset"


def test_from_envelope_turns_an_unknown_code_into_an_internal_error():
    rebuilt = from_envelope({"error": {"code": "made_up", "message": "?"}})
    assert type(rebuilt) is InternalError
    assert isinstance(rebuilt, ScholarError)


def test_the_envelope_is_the_body_wrapped_once():
    err = RateLimitedError("slow down", source="s2", retry_after_s=1.5)

    assert err.to_envelope() == errors.envelope(err.envelope_body()) == {"error": err.envelope_body()}
