"""The one error hierarchy and its envelope (DESIGN §4).

Every failure a tool can report is a ``ScholarError``; one place (``envelope_body``, wrapped by ``to_envelope`` and
``envelope``) turns it into the ``{"error": {...}}`` result that callers see with ``isError: true``; no tool code
assembles it by hand. Foreign errors (httpx, botocore) are translated once, at their boundary (scholar.sources.http,
scholar.store), never here.

    ScholarError (code="internal")
    ├── InvalidArgumentError   invalid_argument   the caller can fix the call
    ├── NotFoundError          not_found          the source answered and holds no such thing
    ├── ForbiddenError         forbidden          refused (credentials, fair-use, SSRF guard)
    ├── TooLargeError          too_large          over a size cap
    ├── RateLimitedError       rate_limited       throttled; retryable, maybe with retry_after_s
    ├── UpstreamError          upstream_error     the source failed or answered nonsense
    │   └── UpstreamTimeoutError  timeout         the source did not answer in time
    ├── WorkTimeoutError       timeout            our own work outlived the call's budget (no source)
    ├── UnavailableError       unavailable        a part of ours is not configured or not there
    │   └── UsageReadError, UsageWriteError (scholar.store.usage)   the usage table could not be read / written
    └── InternalError          internal           our bug
"""

from __future__ import annotations

import copy as _copy
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

ErrorCode = Literal[
    "not_found",
    "invalid_argument",
    "rate_limited",
    "upstream_error",
    "timeout",
    "unavailable",
    "forbidden",
    "too_large",
    "internal",
]

NOT_FOUND: ErrorCode = "not_found"
INVALID_ARGUMENT: ErrorCode = "invalid_argument"
RATE_LIMITED: ErrorCode = "rate_limited"
UPSTREAM_ERROR: ErrorCode = "upstream_error"
TIMEOUT: ErrorCode = "timeout"
UNAVAILABLE: ErrorCode = "unavailable"
FORBIDDEN: ErrorCode = "forbidden"
TOO_LARGE: ErrorCode = "too_large"
INTERNAL: ErrorCode = "internal"

_MAX_MESSAGE = 500


class ErrorBody(BaseModel):
    """The body of the error envelope (DESIGN §4): what ``ScholarError.to_envelope`` builds, as a schema."""

    model_config = ConfigDict(extra="allow")
    code: str
    message: str
    retryable: bool


class ErrorEnvelope(BaseModel):
    """What a tool returns with ``isError: true`` (one of every tool's output schema's forms)."""

    error: ErrorBody


class ScholarError(Exception):
    """Base of every error a tool reports; carries its facts as attributes."""

    code: ClassVar[ErrorCode] = INTERNAL
    default_retryable: ClassVar[bool] = False
    default_hint: ClassVar[str | None] = None

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        status: int | None = None,
        retryable: bool | None = None,
        retry_after_s: float | None = None,
        hint: str | None = None,
        reason: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.source = source
        self.status = status
        self.retryable = self.default_retryable if retryable is None else retryable
        self.retry_after_s = retry_after_s
        self.hint = hint or self.default_hint
        self.reason = reason
        self.details = details or {}

    def annotated(self, note: str, **details: Any) -> ScholarError:
        """A copy of this error, of the same kind, whose message ends with ``note`` and whose details add ``details``
        (what the caller knows that the raiser did not: e.g. how much of a long write was stored before it)."""
        copy = _copy.copy(self)
        copy.message = f"{self.message}; {note}"
        copy.args = (copy.message,)
        copy.details = {**self.details, **details}
        return copy

    def to_envelope(self) -> dict[str, Any]:
        """Return the DESIGN §4 envelope: ``{"error": {...}}`` without empty fields."""
        return envelope(self.envelope_body())

    def envelope_body(self) -> dict[str, Any]:
        """Return the envelope's body, ``{code, message, retryable, …}``: what a task, a step or an outcome stores."""
        error: dict[str, Any] = {
            "code": self.code,
            "message": self.message[:_MAX_MESSAGE],
            "retryable": self.retryable,
        }
        if self.retry_after_s is not None:
            error["retry_after_s"] = round(self.retry_after_s, 3)
        if self.source:
            error["source"] = self.source
        if self.status is not None:
            error["status"] = self.status
        if self.reason:
            error["reason"] = self.reason
        if self.details:
            error["details"] = self.details
        if self.hint:
            error["recovery"] = {"hint": self.hint}
        # Clients written to seed 004's convention read {code, message, data: {reason, recovery, retryable}}.
        data: dict[str, Any] = {"reason": self.reason or self.code, "retryable": self.retryable}
        if self.hint:
            data["recovery"] = {"hint": self.hint}
        error["data"] = data
        return error


def envelope(body: dict[str, Any]) -> dict[str, Any]:
    """The DESIGN §4 envelope ``{"error": body}`` around a body this process built or a family function reported."""
    return {"error": body}


class InvalidArgumentError(ScholarError):
    """An argument breaks a rule; ``field`` names it and the message states the rule."""

    code = INVALID_ARGUMENT
    default_hint = "Fix the named argument and call again."

    def __init__(self, message: str, *, field: str | None = None, **kwargs: Any) -> None:
        details = dict(kwargs.pop("details", None) or {})
        if field:
            details.setdefault("field", field)
        super().__init__(message, details=details, **kwargs)
        self.field = field


class NotFoundError(ScholarError):
    code = NOT_FOUND
    # No default: what to try next depends on the tool (a DOI means nothing to get_book); the family
    # function adds its own hint where the raiser gave none (scholar.runtime.hints).
    default_hint = None


class ForbiddenError(ScholarError):
    code = FORBIDDEN


class TooLargeError(ScholarError):
    code = TOO_LARGE


class RateLimitedError(ScholarError):
    code = RATE_LIMITED
    default_retryable = True
    default_hint = "The source is throttling us; retry after retry_after_s or poll the queued task."


class UpstreamError(ScholarError):
    code = UPSTREAM_ERROR
    default_retryable = True
    default_hint = "The source failed; retrying later may succeed."


class UpstreamTimeoutError(UpstreamError):
    code = TIMEOUT


class WorkTimeoutError(ScholarError):
    """Work of ours (building an index, a search) did not finish within the call; what was done is kept."""

    code = TIMEOUT
    default_retryable = True
    default_hint = "Call again: the work resumes where it stopped."


class UnavailableError(ScholarError):
    code = UNAVAILABLE


class InternalError(ScholarError):
    code = INTERNAL


_BY_CODE: dict[str, type[ScholarError]] = {
    cls.code: cls
    for cls in (
        InvalidArgumentError,
        NotFoundError,
        ForbiddenError,
        TooLargeError,
        RateLimitedError,
        UpstreamError,
        UpstreamTimeoutError,
        UnavailableError,
        InternalError,
    )
}


def from_envelope(envelope: dict[str, Any]) -> ScholarError:
    """Rebuild the error a family function reported (the inverse of ``to_envelope``)."""
    body = envelope.get("error", envelope)
    cls = _BY_CODE.get(str(body.get("code")), InternalError)
    if cls is UpstreamTimeoutError and not body.get("source"):
        cls = WorkTimeoutError  # the one code two classes share: a source's timeout names the source, ours none
    err = cls.__new__(cls)
    ScholarError.__init__(
        err,
        str(body.get("message", "")),
        source=body.get("source"),
        status=body.get("status"),
        retryable=body.get("retryable"),
        retry_after_s=body.get("retry_after_s"),
        hint=(body.get("recovery") or {}).get("hint"),
        reason=body.get("reason"),
        details=body.get("details"),
    )
    if isinstance(err, InvalidArgumentError):
        err.field = (body.get("details") or {}).get("field")
    return err
