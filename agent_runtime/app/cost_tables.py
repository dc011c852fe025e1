"""The LLM bill of a ``piano bench cost`` result as text: the README's paragraph, the
BENCH.md table per module, a before/after table of several results, and the bill with
``llm.small_model`` for the small calls (rendered by ``piano docs`` and ``--render``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = [
    "EXTRAPOLATE_AGENTS",
    "render_compare",
    "render_markdown",
    "render_summary",
    "with_small_model",
]

#: the village size a result's rates are extrapolated to
EXTRAPOLATE_AGENTS = 50


def render_summary(result: dict[str, Any], source: str) -> str:
    """One paragraph of a result for the README: calls and dollars per agent-hour, the model's
    share of decisions, the longest gap, and a 50-agent village's rates."""
    a, c, v = result["modules"]["all"], result["controller"], result["village_50"]
    openai_rule = "cached_tokens" in result  # older results counted any shared prefix
    cached = (
        "cached input as OpenAI counts it"
        if openai_rule
        else "cached input at half price, any shared prefix counted as cached"
    )
    mixed = with_small_model(result["modules"])["gpt-4o + gpt-4o-mini"]
    return (
        f"Measured ({result['agents']} agents, world {result['world']}, endpoint "
        f"{result['latency_ms']:g} ms, {result['measured_s']:g} s; `{source}`): "
        f"{a['calls_per_agent_hour']:,.0f} calls and "
        f"${a['usd_per_agent_hour']['gpt-4o']:.2f} per agent-hour at gpt-4o list prices "
        f"({cached}; ${a['usd_per_agent_hour_uncached']['gpt-4o']:.2f} with nothing cached; "
        f"${mixed:.2f} with `small_model: gpt-4o-mini` for importance ratings and social "
        f"summaries; ${a['usd_per_agent_hour']['gpt-4o-mini']:.2f} all at gpt-4o-mini), the "
        f"model making {c['model_share']:.0%} of the controller's decisions, "
        f"every agent deciding at least every {c['longest_gap_s']:g} s; a "
        f"{EXTRAPOLATE_AGENTS}-agent village would send {v['requests_per_minute']:,.0f} requests "
        f"and {v['tokens_per_minute']:,.0f} tokens a minute.\n"
    )


def with_small_model(
    table: dict[str, Any], main: str = "gpt-4o", small: str = "gpt-4o-mini"
) -> dict[str, float]:
    """The bill per agent-hour with ``llm.small_model`` configured: the small calls
    (:data:`~agent_runtime.config.llm.SMALL_MODEL_MODULES`) priced at ``small``, the rest at
    ``main``; keyed ``"<main> + <small>"``."""
    from agent_runtime.config.llm import SMALL_MODEL_MODULES

    total = sum(
        m["usd_per_agent_hour"][small if name in SMALL_MODEL_MODULES else main]
        for name, m in table.items()
        if name != "all"
    )
    return {f"{main} + {small}": round(total, 4)}


def render_compare(results: list[tuple[str, dict[str, Any]]]) -> str:
    """A before/after table of several results (label, result), one column each."""

    def row(name: str, cell: Callable[[dict[str, Any]], str]) -> str:
        return f"| {name} | " + " | ".join(cell(r) for _, r in results) + " |"

    def calls(*modules: str) -> Callable[[dict[str, Any]], str]:
        return lambda r: " / ".join(
            f"{r['modules'].get(m, {}).get('calls_per_agent_hour', 0):,.0f}" for m in modules
        )

    def per_call(r: dict[str, Any]) -> str:
        p = r["modules"].get("planning", {})
        n = p.get("calls", 0)
        if not n:
            return "0"
        return f"{p['calls_per_agent_hour']:,.0f} ({p['completion_tokens'] / n:,.0f})"

    def mixed(r: dict[str, Any]) -> str:
        return f"{with_small_model(r['modules'])['gpt-4o + gpt-4o-mini']:.2f}"

    def decisions(r: dict[str, Any]) -> str:
        c = r["controller"]
        return f"{c['model_decisions']:,} ({c['model_share']:.0%})"

    def a(r: dict[str, Any]) -> dict[str, Any]:
        all_: dict[str, Any] = r["modules"]["all"]
        return all_

    rows = [
        "| per agent-hour | " + " | ".join(label for label, _ in results) + " |",
        "|---|" + "---|" * len(results),
        row("controller calls", calls("cognitive_controller")),
        row("planning calls (completion tokens a call)", per_call),
        row(
            "reflection / memory (importance) / goal generation calls",
            calls("reflection", "memory", "goal_generation"),
        ),
        row("social awareness / talking calls", calls("social_awareness", "talking")),
        row("all calls", lambda r: f"{a(r)['calls_per_agent_hour']:,.0f}"),
        row(
            "prompt tokens (cacheable prefix)",
            lambda r: (
                f"{a(r)['prompt_tokens_per_agent_hour']:,.0f} "
                f"({a(r)['cached_tokens_per_agent_hour']:,.0f})"
            ),
        ),
        row("completion tokens", lambda r: f"{a(r)['completion_tokens_per_agent_hour']:,.0f}"),
        row(
            "$ at gpt-4o (cached as the endpoint reported)",
            lambda r: f"{a(r)['usd_per_agent_hour']['gpt-4o']:.2f}",
        ),
        row(
            "$ at gpt-4o, nothing cached",
            lambda r: f"{a(r)['usd_per_agent_hour_uncached']['gpt-4o']:.2f}",
        ),
        row("$ at gpt-4o-mini", lambda r: f"{a(r)['usd_per_agent_hour']['gpt-4o-mini']:.2f}"),
        row("$ with memory and social on gpt-4o-mini, the rest on gpt-4o", mixed),
        row("controller decisions by the endpoint (share)", decisions),
        row(
            "of the endpoint's decisions only `continue`",
            lambda r: f"{r['controller']['model_continue_share']:.0%}",
        ),
        row(
            "longest gap between two decisions of one agent",
            lambda r: f"{r['controller']['longest_gap_s']:g} s",
        ),
        row(
            f"skill outcomes in the run ({results[0][1]['measured_s']:g} s)",
            lambda r: f"{r['skill_outcomes']:,}",
        ),
        row(
            f"{EXTRAPOLATE_AGENTS} agents (linear): requests / tokens a minute",
            lambda r: (
                f"{r['village_50']['requests_per_minute']:,.0f} / "
                f"{r['village_50']['tokens_per_minute']:,.0f}"
            ),
        ),
    ]
    return "\n".join(rows) + "\n"


def render_markdown(result: dict[str, Any], source: str) -> str:
    """The BENCH.md table of one result: per module, calls, prompt, cacheable-prefix and
    completion tokens per agent-hour, dollars at gpt-4o and gpt-4o-mini, then the totals."""
    from agent_runtime.config.llm import DEFAULT_PRICES
    from agent_runtime.llm.cost import usd as price

    rows = [
        "| module | calls / agent-h | prompt tokens / agent-h | cacheable prefix / agent-h "
        "| completion / agent-h | $ / agent-h gpt-4o | $ / agent-h gpt-4o-mini |",
        "|---|---|---|---|---|---|---|",
    ]
    rows[0] += " $ / agent-h gpt-4o, no cache |"
    rows[1] += "---|"
    for module, r in result["modules"].items():
        usd = r["usd_per_agent_hour"]
        # as if nothing were cached: from the per agent-hour counters (older results lack it)
        uncached = price(
            {
                "prompt_tokens": r["prompt_tokens_per_agent_hour"],
                "completion_tokens": r["completion_tokens_per_agent_hour"],
            },
            DEFAULT_PRICES["gpt-4o"],
        )
        name = f"**{module}**" if module == "all" else module
        rows.append(
            f"| {name} | {r['calls_per_agent_hour']:,.0f} | "
            f"{r['prompt_tokens_per_agent_hour']:,.0f} | "
            f"{r['cached_tokens_per_agent_hour']:,.0f} | "
            f"{r['completion_tokens_per_agent_hour']:,.0f} | "
            f"{usd['gpt-4o']:.2f} | {usd['gpt-4o-mini']:.3f} | "
            f"{uncached:.2f} |"
        )
    c = result["controller"]
    v = result[f"village_{EXTRAPOLATE_AGENTS}"]
    notes = [
        f"From `{source}` ({result['date']}, {result['agents']} agents, world "
        f"{result['world']}, endpoint {result['latency_ms']:g} ms, "
        f"{result['measured_s']:g} s measured after a {result['startup_s']:g} s start-up).",
        "",
        *rows,
        "",
        f"- Controller: {c['decisions']} decisions published, {c['model_decisions']} by the "
        f"endpoint ({c['model_share']:.0%}; the rest reflexes and keep-going lines), "
        f"{c['model_decisions_by_kind'].get('continue', 0)} of those "
        f"({c['model_continue_share']:.0%}) only `continue`; its calls answered by the "
        f"endpoint: {result['controller_calls_model_share']:.0%}.",
        f"- Longest gap between two decisions of one agent: {c['longest_gap_s']:g} s "
        f"(between two of the endpoint's: {c['longest_model_gap_s']:g} s).",
        f"- A {EXTRAPOLATE_AGENTS}-agent village (linear): {v['requests_per_minute']:,.0f} "
        f"requests and {v['tokens_per_minute']:,.0f} tokens a minute; "
        f"${v['usd_per_hour']['gpt-4o']:,.2f} an hour at gpt-4o, "
        f"${v['usd_per_hour']['gpt-4o-mini']:,.2f} at gpt-4o-mini.",
    ]
    return "\n".join(notes) + "\n"
