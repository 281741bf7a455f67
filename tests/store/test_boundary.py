"""botocore's errors leave the store as ours (scholar.store.boundary): never ``internal`` for a throttled table."""

import inspect
import logging

import pytest
from botocore import exceptions as boto
from botocore.exceptions import ClientError

from scholar.core.errors import INTERNAL, UNAVAILABLE, ScholarError
from scholar.store import batch, limiter
from scholar.store.batch import UNPROCESSED_BACKOFF_S
from scholar.store.blobs import BlobStore
from scholar.store.boundary import THROTTLING_CODES, boto_errors, translate
from scholar.store.cache import Cache
from scholar.store.tasks import TaskItem, TaskStore, TaskTransitionError
from tests.store.backends import backend_of

FOREIGN_CLASSES = [
    cls
    for cls in vars(boto).values()
    if inspect.isclass(cls)
    and issubclass(cls, (boto.ClientError, boto.BotoCoreError))
    and cls.__module__ == boto.__name__
]


def client_error(code: str, operation: str = "GetItem") -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": "from the service"}}, operation)


class FailingClient:
    """A boto3 client stand-in whose every call raises ``exc``."""

    def __init__(self, exc: Exception) -> None:
        self.exc = exc
        self.calls = 0

    def __getattr__(self, name: str):
        def call(**kwargs):
            self.calls += 1
            raise self.exc

        return call


def test_every_botocore_exception_class_translates_to_a_typed_error():
    assert len(FOREIGN_CLASSES) > 50  # botocore's whole list, not a sample
    for cls in FOREIGN_CLASSES:
        err = translate(cls.__new__(cls), "testing")
        assert isinstance(err, ScholarError), cls.__name__
        assert err.code in (UNAVAILABLE, INTERNAL), cls.__name__


@pytest.mark.parametrize(
    "cls",
    [
        boto.EndpointConnectionError,
        boto.ConnectTimeoutError,
        boto.ReadTimeoutError,
        boto.ConnectionClosedError,
        boto.ResponseStreamingError,
        boto.CapacityNotAvailableError,
    ],
)
def test_an_unreachable_store_is_a_retryable_unavailable(cls):
    err = translate(cls.__new__(cls), "testing")
    assert (err.code, err.retryable) == (UNAVAILABLE, True)


@pytest.mark.parametrize("cls", [boto.NoCredentialsError, boto.NoRegionError, boto.PartialCredentialsError])
def test_missing_credentials_or_region_are_an_unavailable_that_retrying_will_not_fix(cls):
    err = translate(cls.__new__(cls), "testing")
    assert (err.code, err.retryable) == (UNAVAILABLE, False)


@pytest.mark.parametrize("code", sorted(THROTTLING_CODES))
def test_a_throttled_store_is_a_retryable_unavailable(code):
    err = translate(client_error(code), "testing")
    assert (err.code, err.retryable, err.reason) == (UNAVAILABLE, True, "storage_throttled")


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("ConditionalCheckFailedException", (UNAVAILABLE, True)),
        ("TransactionCanceledException", (UNAVAILABLE, True)),
        ("InternalServerError", (UNAVAILABLE, True)),
        ("ResourceNotFoundException", (UNAVAILABLE, False)),
        ("AccessDeniedException", (UNAVAILABLE, False)),
        ("ValidationException", (INTERNAL, False)),
        ("SomethingNew", (UNAVAILABLE, True)),
    ],
)
def test_each_client_error_code_maps_to_what_it_means(code, expected):
    err = translate(client_error(code), "testing")
    assert (err.code, err.retryable) == expected


def test_the_boundary_lets_our_own_errors_through_unchanged():
    with pytest.raises(TaskTransitionError), boto_errors("testing"):
        raise TaskTransitionError("already final")


def test_a_throttled_cache_read_is_unavailable_not_internal(aws):
    cache = Cache(client=FailingClient(client_error("ProvisionedThroughputExceededException")), memory=False)
    with pytest.raises(ScholarError) as caught:
        cache.get("record", "s2:x")
    assert (caught.value.code, caught.value.retryable) == (UNAVAILABLE, True)


def test_a_throttled_cache_write_is_unavailable_not_internal(aws):
    cache = Cache(client=FailingClient(client_error("ThrottlingException")), memory=False)
    with pytest.raises(ScholarError) as caught:
        cache.put("record", "s2:x", {"a": 1})
    assert caught.value.code == UNAVAILABLE


def test_an_unreachable_artifact_bucket_is_unavailable(aws):
    blobs = BlobStore(client=FailingClient(boto.EndpointConnectionError(endpoint_url="http://s3.test")))
    with pytest.raises(ScholarError) as caught:
        blobs.get("pdfs/x.pdf")
    assert (caught.value.code, caught.value.retryable) == (UNAVAILABLE, True)


def test_a_throttled_task_table_is_unavailable_and_a_lost_race_is_still_a_transition_error(aws):
    throttled = TaskStore(client=FailingClient(client_error("ProvisionedThroughputExceededException")))
    with pytest.raises(ScholarError) as caught:
        throttled.get("t1", "p")
    assert caught.value.code == UNAVAILABLE
    raced = TaskStore(client=FailingClient(client_error("ConditionalCheckFailedException", "PutItem")))
    with pytest.raises(TaskTransitionError):
        raced.create(TaskItem(task_id="t1", principal="p", tool="get_paper", expires_at=2_000_000_000))


class UnprocessedThenServed:
    """batch_get_item that leaves every key unprocessed ``times`` times, then answers from the real table."""

    def __init__(self, real, times: int) -> None:
        self.real = real
        self.times = times
        self.calls = 0

    def batch_get_item(self, RequestItems):
        self.calls += 1
        if self.calls <= self.times:
            return {"Responses": {}, "UnprocessedKeys": RequestItems}
        return self.real.batch_get_item(RequestItems=RequestItems)

    def __getattr__(self, name):
        return getattr(self.real, name)


def test_unprocessed_keys_are_asked_again_after_a_growing_backoff(aws, monkeypatch):
    waits: list[float] = []
    monkeypatch.setattr(batch, "_sleep", waits.append)
    Cache(memory=False).put("record", "s2:a", {"a": 1})
    client = UnprocessedThenServed(aws.dynamodb, times=2)
    found = Cache(client=client, memory=False).get_many("record", ["s2:a"])
    assert found == {"s2:a": {"a": 1}}
    assert waits == list(UNPROCESSED_BACKOFF_S[:2])


def test_keys_still_unprocessed_after_the_backoff_budget_are_misses_not_a_loop(aws, monkeypatch):
    waits: list[float] = []
    monkeypatch.setattr(batch, "_sleep", waits.append)
    client = UnprocessedThenServed(aws.dynamodb, times=1_000)
    assert Cache(client=client, memory=False).get_many("record", ["s2:a"]) == {}
    assert waits == list(UNPROCESSED_BACKOFF_S)


def test_a_throttled_pace_table_falls_back_to_per_process_pacing_logged_and_counted(aws, monkeypatch, caplog):
    monkeypatch.setattr(limiter.aws, "dynamodb", lambda: FailingClient(client_error("ThrottlingException")))
    source = f"test-fallback-throttled-{backend_of(aws)}"  # the fallback's pace is per process: one per backend
    before = limiter.fallback_counts().get(source, 0)
    with caplog.at_level(logging.WARNING, logger=limiter.__name__):
        assert limiter.reserve(source, 1.0) == 0
        assert limiter.reserve(source, 1.0) > 0  # still paced, within this process
    assert limiter.fallback_counts()[source] == before + 2
    assert any(source in r.getMessage() for r in caplog.records)


def test_a_missing_pace_table_is_reported_not_hidden_behind_the_fallback(aws, monkeypatch):
    monkeypatch.setattr(limiter.aws, "dynamodb", lambda: FailingClient(client_error("ResourceNotFoundException")))
    with pytest.raises(ScholarError) as caught:
        limiter.reserve("test-fallback-missing", 1.0)
    assert (caught.value.code, caught.value.retryable) == (UNAVAILABLE, False)
