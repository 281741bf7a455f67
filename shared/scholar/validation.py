"""Turning pydantic validation failures into an ``invalid_argument`` error that names field and rule."""

from __future__ import annotations

from pydantic import ValidationError

from scholar.errors import InvalidArgumentError


def invalid_argument(exc: ValidationError, *, tool: str) -> InvalidArgumentError:
    """The first failure as the message (field + rule), all failures in ``details.errors``."""
    problems = []
    for err in exc.errors(include_url=False):
        field = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        rule = err["msg"]
        if err["type"] == "extra_forbidden":
            rule = "is not a parameter of this tool"
        elif err["type"] == "missing":
            rule = "is required"
        problems.append({"field": field, "rule": rule})
    first = problems[0] if problems else {"field": "(arguments)", "rule": "invalid"}
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return InvalidArgumentError(
        f"{tool}: argument '{first['field']}' {first['rule']}{more}",
        field=first["field"],
        details={"errors": problems},
    )
