"""botocore's errors, translated into ours once, where the store calls AWS (DESIGN §4).

A throttled or unreachable table is a temporary failure of ours (retryable ``unavailable``), never an
``internal`` crash and never "no such item". Callers that expect a condition to fail (task state changes,
the limiter's races) read the ``ConditionalCheckFailedException`` themselves *inside* ``boto_errors`` and
raise the typed error it means there; whatever reaches this boundary is translated by ``translate``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from botocore import exceptions as boto

from scholar.core.errors import InternalError, ScholarError, UnavailableError

# Error codes in a ClientError, by what they mean for the caller.
# The reason of the error a write gets when the disk holding the store is full (the local backend's SQLite and
# files): what a caller may treat as "not stored this time", e.g. an index or cache copy kept in memory instead.
DISK_FULL = "store_disk_full"
THROTTLING_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "Throttling",
        "ThrottledException",
        "RequestLimitExceeded",
        "TooManyRequestsException",
        "SlowDown",
        "RequestThrottled",
        "RequestThrottledException",
        "LimitExceededException",
        "TransactionInProgressException",
    }
)
# A condition another writer made false: retrying (after re-reading) may succeed.
CONFLICT_CODES = frozenset(
    {"ConditionalCheckFailedException", "TransactionCanceledException", "TransactionConflictException"}
)
# The service failed on its side.
SERVICE_CODES = frozenset(
    {"InternalServerError", "InternalFailure", "InternalError", "ServiceUnavailable", "ServiceUnavailableException",
     "503", "500"}
)
# Our deployment is wrong: a missing table or bucket, refused credentials.
CONFIG_CODES = frozenset(
    {
        "ResourceNotFoundException",
        "NoSuchBucket",
        "AccessDenied",
        "AccessDeniedException",
        "UnrecognizedClientException",
        "InvalidAccessKeyId",
        "SignatureDoesNotMatch",
        "ExpiredToken",
        "ExpiredTokenException",
        "MissingAuthenticationTokenException",
        "403",
    }
)
# Our request is malformed: a bug of ours.
REQUEST_CODES = frozenset({"ValidationException", "SerializationException", "InvalidParameterValue", "400"})

# botocore's own (non-HTTP-status) exceptions, most specific first.
_TEMPORARY: tuple[type[Exception], ...] = (
    boto.ConnectionError,  # EndpointConnectionError, ConnectTimeoutError, ReadTimeoutError, …
    boto.ConnectionClosedError,
    boto.HTTPClientError,
    boto.ResponseStreamingError,
    boto.IncompleteReadError,
    boto.CredentialRetrievalError,
    boto.MetadataRetrievalError,
    boto.CapacityNotAvailableError,  # boto's own retry quota ran out
)
_CONFIGURATION: tuple[type[Exception], ...] = (
    boto.NoCredentialsError,
    boto.PartialCredentialsError,
    boto.NoRegionError,
    boto.ProfileNotFound,
    boto.ConfigNotFound,
    boto.InvalidConfigError,
    boto.UnknownServiceError,
    boto.DataNotFoundError,
    boto.UnknownRegionError,
    boto.InvalidRegionError,
    boto.ServiceNotInRegionError,
    boto.NoAuthTokenError,
    boto.TokenRetrievalError,
    boto.UnknownCredentialError,
    boto.RefreshWithMFAUnsupportedError,
    boto.SSOError,
    boto.LoginError,
    boto.ConfigParseError,
    boto.InvalidIMDSEndpointError,
    boto.MissingDependencyException,
)


def error_code(exc: boto.ClientError) -> str:
    """The service's error code of a ClientError ("" when it sent none)."""
    return str((getattr(exc, "response", None) or {}).get("Error", {}).get("Code", ""))


def translate(exc: Exception, what: str) -> ScholarError:
    """Our typed error for a botocore failure of ``what`` (e.g. "reading the cache").

    Args:
        exc: a botocore ``ClientError`` or ``BotoCoreError``.
        what: the store operation, for the message (never a key or a value).
    """
    if isinstance(exc, boto.ClientError):
        code = error_code(exc)
        if code in THROTTLING_CODES:
            return UnavailableError(
                f"storage is throttling us while {what} ({code})",
                retryable=True,
                reason="storage_throttled",
                hint="Our storage is busy; retry in a few seconds.",
            )
        if code in CONFLICT_CODES:
            return UnavailableError(
                f"a concurrent change won while {what} ({code})",
                retryable=True,
                reason="storage_conflict",
                hint="Another request changed the same item; retry the call.",
            )
        if code in SERVICE_CODES:
            return UnavailableError(f"storage failed while {what} ({code})", retryable=True, reason="storage_failed",
                                    hint="Our storage failed; retrying shortly may succeed.")
        if code in CONFIG_CODES:
            return UnavailableError(f"storage is not usable while {what} ({code})", retryable=False,
                                    reason="storage_misconfigured",
                                    hint="The deployment's table, bucket or credentials are wrong; tell its operator.")
        if code in REQUEST_CODES:
            return InternalError(f"storage refused our request while {what} ({code})", reason="storage_request")
        return UnavailableError(f"storage failed while {what} ({code or 'no code'})", retryable=True,
                                reason="storage_failed")
    if isinstance(exc, _CONFIGURATION):
        return UnavailableError(f"storage is not configured while {what} ({type(exc).__name__})", retryable=False,
                                reason="storage_misconfigured",
                                hint="The deployment's AWS region or credentials are missing; tell its operator.")
    if isinstance(exc, _TEMPORARY):
        return UnavailableError(f"storage could not be reached while {what} ({type(exc).__name__})", retryable=True,
                                reason="storage_unreachable", hint="Our storage did not answer; retry shortly.")
    # ParamValidationError, waiter, paginator and stubber errors: a request we built wrongly.
    return InternalError(f"storage call failed while {what} ({type(exc).__name__})", reason="storage_request")


@contextmanager
def boto_errors(what: str) -> Iterator[None]:
    """Run store code whose botocore failures leave as our typed errors.

    Raises:
        ScholarError: the translation of a ClientError or BotoCoreError (see ``translate``).
    """
    try:
        yield
    except (boto.ClientError, boto.BotoCoreError) as exc:
        raise translate(exc, what) from exc
