"""Constructor checks name the argument that is wrong, and the objects that use them refuse it."""

from __future__ import annotations

import math

import pytest

from agent_runtime.checks import require_positive
from agent_runtime.llm.buckets import TokenBucket
from agent_runtime.llm.limits import Limiter


def test_the_first_value_not_above_zero_is_named() -> None:
    require_positive(a=1, b=0.5)
    with pytest.raises(ValueError, match=r"^b must be positive, got 0$"):
        require_positive(a=1, b=0, c=-1)
    with pytest.raises(ValueError, match="c must be positive, got nan"):
        require_positive(c=math.nan)


def test_limits_refuse_what_cannot_work() -> None:
    with pytest.raises(ValueError, match="window_s must be positive"):
        Limiter(window_s=0)
    with pytest.raises(ValueError, match=r"max_limit \(the concurrency\) must be >= 1"):
        Limiter(concurrency=0)
    with pytest.raises(ValueError, match="rate_per_s must be positive"):
        TokenBucket(10, -1.0)
