"""A Lambda context for in-process invocations (the local stack, tests, benchmarks)."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field


@dataclass
class LocalContext:
    function_name: str = "scholar-local"
    memory_limit_in_mb: int = 1024
    timeout_s: float = 30.0
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:scholar-local"
    function_version: str = "$LATEST"
    log_group_name: str = "/aws/lambda/scholar-local"
    log_stream_name: str = "local"
    _started: float = field(default_factory=time.monotonic)

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.timeout_s - (time.monotonic() - self._started)) * 1000))
