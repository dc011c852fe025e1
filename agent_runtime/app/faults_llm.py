"""The LLM part of ``piano faults``: a village on an OpenAI-compatible endpoint (the
project's fake server) that answers 429, 500, times out, or sends garbage for a while.

For each fault the suite checks that the village keeps deciding while the endpoint fails
(every failed call falls back to the heuristic with its reason recorded; after a few the
endpoint's circuit opens and calls skip it), and that after the fault the model decides
again (``recovered``; ``seconds_to_recover`` counts from the end of the fault to the first
decision labelled with the model's name).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_runtime.app.fault_kit import AGENTS, FaultResult, until
from agent_runtime.config.loader import parse_config
from agent_runtime.llm.fake_server import FakeOpenAIServer, FakeReply, RecordedRequest

__all__ = ["instance_of", "llm_faults"]

MODEL = "faulty-model"
FAULTS = ("http_429", "http_500", "timeout", "garbage")


def instance_of(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """A minimal JSON value valid against ``schema`` (the strict subset our calls send)."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return instance_of(defs[schema["$ref"].rsplit("/", 1)[1]], defs)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = [o for o in schema[key] if o.get("type") != "null"] or schema[key]
            return instance_of(options[0], defs)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props: dict[str, Any] = schema.get("properties", {})
        required = schema.get("required", list(props))
        return {k: instance_of(props[k], defs) for k in required if k in props}
    if kind == "array":
        n = int(schema.get("minItems", 0))
        return [instance_of(schema.get("items", {}), defs) for _ in range(n)]
    if kind == "string":
        return "x" * max(1, int(schema.get("minLength", 1)))
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        return int(low) + (1 if "exclusiveMinimum" in schema else 0)
    if kind == "boolean":
        return False
    return None


def _schema_of(request: RecordedRequest) -> dict[str, Any] | None:
    rf = request.body.get("response_format") if isinstance(request.body, dict) else None
    if not isinstance(rf, dict):
        return None
    if isinstance(rf.get("json_schema"), dict):
        schema = rf["json_schema"].get("schema")
        return schema if isinstance(schema, dict) else None
    schema = rf.get("schema")
    return schema if isinstance(schema, dict) else None


class FaultyEndpoint:
    """The fake server's behaviour, switched by the suite."""

    def __init__(self, timeout_s: float) -> None:
        self.mode = "ok"
        self.timeout_s = timeout_s

    def reply(self, request: RecordedRequest) -> FakeReply:
        if self.mode == "http_429":
            return FakeReply.error(429, "slow down")
        if self.mode == "http_500":
            return FakeReply.error(500, "the model crashed")
        if self.mode == "garbage":
            return FakeReply.text("%% <<< not json at all >>>")
        schema = _schema_of(request)
        body = instance_of(schema) if schema is not None else {}
        delay = self.timeout_s + 1.0 if self.mode == "timeout" else 0.0
        return FakeReply.json(body, delay_s=delay)


def _more_than(items: list[float], n: int) -> Callable[[], bool]:
    return lambda: len(items) > n


async def llm_faults(
    run_dir: Path, *, fault_s: float = 8.0, window: float = 60.0
) -> list[FaultResult]:
    """Each LLM fault for ``fault_s`` seconds against a small village; results in order."""
    from agent_runtime.app.village import Village, VillageOptions

    endpoint = FaultyEndpoint(timeout_s=3.0)
    results: list[FaultResult] = []
    async with FakeOpenAIServer(default=endpoint.reply, models=(MODEL,)) as server:
        cfg = parse_config(
            {
                "run": {"seed": 12, "time_scale": 0.3, "progress_every": 1,
                        "embedder": "hashing", "duration": None},
                "world": {"kind": "none"},
                "llm": {"provider": "openai", "base_url": server.base_url, "model": MODEL,
                        "api_key_env": None, "timeout_s": endpoint.timeout_s,
                        "max_retries": 1, "log_prompts": False},
                "agents": [{"name": n, "traits": ["You are steady."]} for n in AGENTS],
            },
            "<faults>",
        )  # fmt: skip
        by_model: list[float] = []
        total: list[float] = []

        def decisions(record: dict[str, Any]) -> None:
            if record.get("type") == "decision":
                total.append(time.monotonic())
                if str(record.get("brain", "")).startswith("llm"):
                    by_model.append(time.monotonic())

        opts = VillageOptions(run_dir=run_dir, run_id=run_dir.name)
        async with Village(cfg, opts) as v:
            v.events.add_listener(decisions)
            await until(lambda: len(by_model) >= 2, window)  # the model works first
            for fault in FAULTS:
                result = FaultResult(f"llm_{fault}")
                d0, e0 = len(total), v.events.counts["module_error"]
                endpoint.mode = fault
                await asyncio.sleep(fault_s)  # the fault lasts this long (its duration, not a sync)
                during = len(total) - d0
                endpoint.mode = "ok"
                took = await until(_more_than(by_model, len(by_model)), window)
                result.recovered = during > 0 and took is not None
                result.seconds_to_recover = took
                result.decisions_in_window = len(total) - d0
                result.errors_in_window = v.events.counts["module_error"] - e0
                result.detail = {"decisions_during_fault": during, "fault_s": fault_s}
                results.append(result)
            llm = v.services.llm if v.services is not None else None
            if llm is not None and results:
                snap = llm.snapshot()
                results[-1].detail["fallback_reasons"] = snap["accounting"]["total"][
                    "fallback_reasons"
                ]
                results[-1].detail["circuits"] = snap.get("circuits", {})
    return results
