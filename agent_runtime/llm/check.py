"""``piano llm check``: what an OpenAI-compatible endpoint can do for a village.

:func:`check_endpoint` makes a handful of tiny requests:

1. ``GET /models``: reachable? is the model listed?
2. one small structured call per structured-output mode (``json_schema``,
   ``json_object_schema``, ``json_object``, ``prompt``), each forced, no retries:
   accepted? did the reply parse?
3. a long prompt with a one-token answer (prompt tokens per second), a short
   prompt with a long answer (generation tokens per second), and the same
   answer twice at once, two times (does the server serve two requests in parallel?).

From those it estimates the latency of a typical controller call and
recommends a concurrency and which modules to keep on the model.
:func:`render_table` prints it for people; :meth:`CheckReport.as_dict` is the
JSON for scripts.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import asdict, dataclass, field
from typing import Any, cast

import openai
from openai import AsyncOpenAI
from pydantic import BaseModel

from agent_runtime.interfaces import LLMRequest, Message, Usage
from agent_runtime.llm.errors import LLMError, LLMInvalidOutput
from agent_runtime.llm.modes import MODES, Mode
from agent_runtime.llm.openai_model import OpenAILanguageModel
from agent_runtime.llm.retries import RetryPolicy
from agent_runtime.text_table import text_table

__all__ = [
    "CONTROLLER_CALL",
    "CheckReport",
    "ModeResult",
    "check_endpoint",
    "recommend",
    "render_table",
]

#: (prompt tokens, reply tokens) of a typical controller call in this runtime (measured
#: with Gemma 3 270M: 475-700 prompt tokens, 30-90 reply tokens with null fields left out).
CONTROLLER_CALL = (600, 50)
#: Modules in the order they matter to an agent that waits on them.
MODULE_TIERS: tuple[tuple[str, ...], ...] = (
    ("cognitive_controller", "talking"),
    ("goal_generation", "planning", "social_awareness"),
    ("reflection", "memory"),
)

_WORDS_TEXT = (
    "river stone oak wheat torch creeper village farm iron pick shovel bread sheep wool "
    "cave night zombie bed chest door path hill lake sand clay brick glass rail gold"
)


class _Probe(BaseModel):
    answer: int


@dataclass(slots=True)
class ModeResult:
    mode: str
    status: str  # "works", "rejected", "invalid reply", "error"
    latency_s: float | None = None
    detail: str = ""

    @property
    def works(self) -> bool:
        return self.status == "works"


@dataclass(slots=True)
class CheckReport:
    base_url: str
    model: str
    reachable: bool = False
    models: list[str] = field(default_factory=list)
    model_listed: bool = False
    modes: list[ModeResult] = field(default_factory=list)
    working_mode: str | None = None
    prompt_tokens_per_s: float | None = None
    generation_tokens_per_s: float | None = None
    parallel_speedup: float | None = None  # 2 requests at once vs one after the other
    controller_call_s: float | None = None  # estimated latency of a typical controller call
    recommendation: dict[str, Any] = field(default_factory=dict)
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.reachable and self.working_mode is not None

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["ok"] = self.ok
        return out


async def check_endpoint(
    base_url: str,
    model: str,
    *,
    api_key: str = "not-needed",
    timeout_s: float = 60.0,
    seed: int | None = None,
) -> CheckReport:
    """Probe ``model`` at ``base_url``; never raises for endpoint trouble (see ``error``)."""
    report = CheckReport(base_url=base_url, model=model)
    rng = random.Random(seed)
    async with AsyncOpenAI(
        base_url=base_url, api_key=api_key, max_retries=0, timeout=timeout_s
    ) as client:
        try:
            listing = await client.models.list()
            report.models = [m.id for m in listing.data]
            report.reachable = True
            report.model_listed = model in report.models
        except openai.APIStatusError as exc:
            report.reachable = True  # it answered, but has no usable /models
            report.error = f"GET /models: HTTP {exc.status_code}"
        except (openai.APIConnectionError, TimeoutError) as exc:
            report.error = f"not reachable: {type(exc).__name__}: {exc}"
            report.recommendation = recommend(report)
            return report
        for mode in MODES:
            report.modes.append(await _try_mode(client, model, mode, timeout_s))
        report.working_mode = next((m.mode for m in report.modes if m.works), None)
        try:
            await _measure_speed(client, model, report, rng, timeout_s)
        except (openai.APIError, TimeoutError, LLMError) as exc:
            # what was measured before the failure stays in the report
            report.error = f"speed probe failed: {type(exc).__name__}: {exc}"
    report.recommendation = recommend(report)
    return report


def _one_shot(client: AsyncOpenAI, model: str, mode: Mode, timeout_s: float) -> OpenAILanguageModel:
    """The model in ``mode`` as the check asks it: no retries, temperature 0."""
    return OpenAILanguageModel(
        client,
        model,
        retry=RetryPolicy(max_retries=0),
        timeout_s=timeout_s,
        structured_output=mode,
        temperature=0.0,
    )


async def _try_mode(client: AsyncOpenAI, model: str, mode: Mode, timeout_s: float) -> ModeResult:
    llm = _one_shot(client, model, mode, timeout_s)
    request = LLMRequest(
        module="llm_check",
        agent="check",
        messages=(
            Message("system", "You answer arithmetic questions."),
            Message("user", 'What is 2 + 3? Reply as JSON: {"answer": <number>}'),
        ),
        response_model=_Probe,
        max_tokens=24,
    )
    t0 = time.monotonic()
    try:
        await llm.complete(request)
    except LLMError as exc:
        status = "error"
        if exc.kind == "LLMRequestRejected":
            status = "rejected"
        elif exc.kind == "LLMInvalidOutput":
            status = "invalid reply"
        detail = " ".join(exc.message.split())[:200]
        return ModeResult(mode, status, round(time.monotonic() - t0, 3), detail)
    return ModeResult(mode, "works", round(time.monotonic() - t0, 3))


async def _measure_speed(
    client: AsyncOpenAI, model: str, report: CheckReport, rng: random.Random, timeout_s: float
) -> None:
    # a long, never-seen prompt (no prefix cache) and a one-token answer
    nonce = rng.randrange(10**9)
    words = _WORDS_TEXT.split()
    text = " ".join(rng.choice(words) for _ in range(320))
    prompt = f"Note {nonce}. Read this list and answer with one word.\n{text}\nOne word:"
    t0 = time.monotonic()
    async with asyncio.timeout(timeout_s):
        completion = await client.chat.completions.create(
            model=model,
            messages=[{"role": "user", "content": prompt}],
            max_tokens=1,
            temperature=0.0,
        )
    latency = max(1e-3, time.monotonic() - t0)
    if completion.usage is None or completion.usage.prompt_tokens <= 0:
        return
    pps = completion.usage.prompt_tokens / latency
    report.prompt_tokens_per_s = round(pps, 1)
    # generation in the working structured-output mode (a grammar costs time per token)
    mode = cast(Mode, report.working_mode or "prompt")
    alone, usage = await _count(client, model, mode, nonce + 1, timeout_s)
    if usage.completion_tokens <= 0:
        return
    generating = max(1e-3, alone - usage.prompt_tokens / pps)
    gps = usage.completion_tokens / generating
    report.generation_tokens_per_s = round(gps, 1)
    prompt_tokens, reply_tokens = CONTROLLER_CALL
    report.controller_call_s = round(prompt_tokens / pps + reply_tokens / gps, 2)
    # two pairs at once, the faster pair counts: one stall of the client's process (a
    # garbage collection, a busy core) must not read as a server that serves one at a time
    both = float("inf")
    for trial in range(2):
        t0 = time.monotonic()
        await asyncio.gather(
            *(_count(client, model, mode, nonce + 2 + 2 * trial + i, timeout_s) for i in range(2))
        )
        both = min(both, time.monotonic() - t0)
    report.parallel_speedup = round(2 * alone / both, 2)


class _Count(BaseModel):
    numbers: list[int]


async def _count(
    client: AsyncOpenAI, model: str, mode: Mode, nonce: int, timeout_s: float
) -> tuple[float, Usage]:
    """Seconds and tokens of one structured reply of about 64 tokens."""
    llm = _one_shot(client, model, mode, timeout_s)
    request = LLMRequest(
        module="llm_check",
        agent="check",
        messages=(Message("user", f"Note {nonce}. List the whole numbers from 1 to 60."),),
        response_model=_Count,
        max_tokens=64,
    )
    t0 = time.monotonic()
    try:
        usage = (await llm.complete(request)).usage
    except LLMInvalidOutput as exc:  # cut off at max_tokens (and repaired): still a sample
        usage = exc.usage
    return max(1e-3, time.monotonic() - t0), usage


def recommend(report: CheckReport) -> dict[str, Any]:
    """Concurrency, structured-output mode and the modules to keep on the model."""
    if not report.reachable:
        return {"summary": "the endpoint is not reachable: check base_url and that it runs"}
    if report.working_mode is None:
        return {
            "summary": "no structured-output mode worked: the model cannot drive a village "
            "(use provider: heuristic or another model)"
        }
    speedup = report.parallel_speedup
    concurrency = 1 if speedup is None or speedup < 1.4 else (2 if speedup < 2.5 else 4)
    call_s = report.controller_call_s
    if call_s is None:
        tiers = len(MODULE_TIERS)
        summary = "speed unknown: keep the defaults and watch the run's fallback lines"
    elif call_s <= 3:
        tiers = 3
        summary = "fast enough for every module"
    elif call_s <= 10:
        tiers = 2
        summary = "keep reflection and importance ratings on the heuristic"
    elif call_s <= 20:
        tiers = 1
        summary = "only the controller and replies on the model; the rest heuristic"
    else:
        tiers = 0
        summary = "too slow for decisions (> 20 s a call): use the heuristic brain"
    on_model = [m for tier in MODULE_TIERS[:tiers] for m in tier]
    heuristic = [m for tier in MODULE_TIERS[tiers:] for m in tier]
    return {
        "concurrency": concurrency,
        "structured_output": report.working_mode,
        "modules_on_model": on_model,
        "modules_on_heuristic": heuristic,
        "summary": summary,
    }


def _fmt(value: float | None, unit: str = "") -> str:
    return "-" if value is None else f"{value:g}{unit}"


def render_table(report: CheckReport) -> str:
    """The report as an aligned two-column table."""
    rows: list[tuple[str, str]] = [
        ("endpoint", report.base_url),
        ("model", report.model),
        ("reachable", "yes" if report.reachable else "NO"),
        ("model listed", "yes" if report.model_listed else f"no (has: {', '.join(report.models)})"),
    ]
    for m in report.modes:
        detail = f" ({m.detail[:70]})" if m.detail and not m.works else ""
        rows.append((f"mode {m.mode}", f"{m.status}, {_fmt(m.latency_s, ' s')}{detail}"))
    rows += [
        ("working mode", report.working_mode or "NONE"),
        ("prompt tokens/s", _fmt(report.prompt_tokens_per_s)),
        ("generation tokens/s", _fmt(report.generation_tokens_per_s)),
        ("2 at once speedup", _fmt(report.parallel_speedup, "x")),
        ("controller call", _fmt(report.controller_call_s, " s (estimated)")),
    ]
    rec = report.recommendation
    if "concurrency" in rec:
        rows += [
            ("recommended", f"concurrency: {rec['concurrency']}"),
            ("", f"structured_output: {rec['structured_output']}"),
            ("on the model", ", ".join(rec["modules_on_model"]) or "-"),
            ("on the heuristic", ", ".join(rec["modules_on_heuristic"]) or "-"),
        ]
    rows.append(("verdict", rec.get("summary", "")))
    if report.error:
        rows.append(("error", report.error))
    return "\n".join(text_table(None, rows))
