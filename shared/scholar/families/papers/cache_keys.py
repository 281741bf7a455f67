"""Cache keys of the papers tools' answers: the tool and its normalised arguments."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel


def cache_key(tool: str, args: BaseModel, **extra: Any) -> str:
    """A normalised key: the tool name and its arguments as sorted JSON (lists of ids sorted by the caller)."""
    payload = {**args.model_dump(mode="json"), **extra}
    return f"{tool}:{json.dumps(payload, sort_keys=True, separators=(',', ':'))}"
