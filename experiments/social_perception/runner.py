"""Social perception: does what agents think of each other track true likeability?

At the end of a run every agent's impressions of the others are collected: the social
module's per-person summary (``Social.people``), or - when an agent has none, as in the
``no_social`` ablation - the lines it heard from that person (``Conversation``). Each
impression is scored 0-10 (LLM prompt ``prompts/likeability.md``; heuristic: the social
module's sentiment, or the friendly/hostile words of the heard lines). Perceived
likeability of B = mean score over B's observers; true likeability comes from the traits
(``agent_runtime.config.names.generate_personality``).

Outputs: ``impressions.csv`` (observer, person, summary, score), ``agents.csv`` (true and
perceived likeability, observers, extroversion), ``r_by_observers.csv``, metrics, plots
(scatter, r vs minimum observers, in-degree vs extroversion, asymmetry histogram, graph).
"""

from __future__ import annotations

import logging
import math
import random
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from agent_runtime.policy import View, make_policy
from agent_runtime.prompts import fenced, prompt_path, untrusted
from experiments import metrics as M
from experiments import plots
from experiments.common import (
    ExperimentFile,
    ExperimentOptions,
    RunSpec,
    Strict,
    Timeline,
    brain_for,
    brain_label,
    brains_seen,
    parse_protocol,
    plan_runs,
    read_events,
    run_village,
    write_csv,
    write_json,
)
from experiments.report import (
    is_pipeline_check,
    md_table,
    paper_column,
    paper_section,
    report_header,
)

log = logging.getLogger(__name__)
PROMPT = prompt_path("experiments.social_perception", "likeability")


class PerceptionProtocol(Strict):
    duration_s: float = Field(default=14400.0, gt=0)
    min_observers: int = Field(default=5, ge=1)
    max_observers: int = Field(default=11, ge=1)
    score_with: Literal["auto", "heuristic", "llm"] = "auto"
    asymmetry_bins: int = Field(default=20, ge=2)
    confidence: float = Field(default=0.95, gt=0, lt=1)


class ScoreOut(BaseModel):
    score: float = Field(ge=0, le=10)
    reason: str = Field(default="", max_length=200)


def heard_score(lines: list[str]) -> float:
    """Heuristic impression from heard lines: 5 moved by friendly / hostile words."""
    from modules.social_awareness import sentiment_delta

    return max(0.0, min(10.0, 5.0 + sum(sentiment_delta(x) for x in lines)))


class ImpressionView(View):
    """What the scorer sees of one observer's impression of one person: the observer's own
    summary (or the lines it heard) and its own sentiment; never the person's traits."""

    observer: str
    person: str
    source: Literal["social", "heard"]
    summary: str
    sentiment: float | None = None  # the observer's social module's sentiment, if any
    lines: tuple[str, ...] = ()  # what the observer heard the person say

    def prompt_variables(self) -> dict[str, str]:
        return {"observer": self.observer, "person": self.person,
                "summary": fenced([untrusted(self.summary)])}


def score_heuristic(view: ImpressionView, rng: random.Random) -> ScoreOut:
    if view.sentiment is not None:
        return ScoreOut(score=max(0.0, min(10.0, view.sentiment)),
                        reason="the social module's sentiment")
    return ScoreOut(score=heard_score(list(view.lines)), reason="words heard")


def perceived(impressions: list[dict[str, Any]]) -> dict[str, tuple[float, int]]:
    """person -> (mean score, number of observers)."""
    by: dict[str, list[float]] = defaultdict(list)
    for i in impressions:
        by[i["person"]].append(float(i["score"]))
    return {p: (sum(v) / len(v), len(v)) for p, v in by.items()}


def r_by_min_observers(
    truth: dict[str, float], perc: dict[str, tuple[float, int]], max_k: int
) -> list[dict[str, Any]]:
    rows = []
    for k in range(1, max_k + 1):
        names = [n for n, (_, obs) in perc.items() if obs >= k and n in truth]
        fit = M.pearson([truth[n] for n in names], [perc[n][0] for n in names])
        rows.append({"min_observers": k, "agents": fit.n, "r": fit.r, "slope": fit.slope,
                     "intercept": fit.intercept})
    return rows


def asymmetries(graph: dict[str, dict[str, float]]) -> list[float]:
    """s(a->b) - s(b->a) for every unordered pair with both directions (a < b)."""
    out = []
    for a, outs in graph.items():
        for b, s in outs.items():
            if a < b and a in graph.get(b, {}):
                out.append(s - graph[b][a])
    return out


async def _one_run(spec: RunSpec, opts: ExperimentOptions, p: PerceptionProtocol) -> dict[str, Any]:
    from agent_runtime.state.sections import Conversation, Social

    data: dict[str, Any] = {}

    async def after(village: Any, tl: Timeline) -> None:
        llm = village.services.llm if p.score_with != "heuristic" else None
        impressions: list[dict[str, Any]] = []
        graph: dict[str, dict[str, float]] = {}
        names = list(village.agents)
        for a in names:
            st = village.store.agent(a)
            social = st.get("social", Social)
            conv = st.get("conversation", Conversation)
            graph[a] = {b: pv.sentiment for b, pv in social.people.items()
                        if b in village.agents and b != a and pv.summary}
            heard: dict[str, list[str]] = defaultdict(list)
            for u in conv.lines:
                if u.speaker != a and u.speaker in village.agents:
                    heard[u.speaker].append(u.text)
            for b in names:
                if b == a:
                    continue
                pv = social.people.get(b)
                if pv is not None and pv.summary:
                    view = ImpressionView(observer=a, person=b, source="social",
                                          summary=pv.summary, sentiment=pv.sentiment)
                elif heard.get(b):
                    lines = tuple(heard[b][-8:])
                    view = ImpressionView(observer=a, person=b, source="heard",
                                          summary=" / ".join(lines), lines=lines)
                else:
                    continue
                policy = make_policy(
                    "likeability_scoring", ScoreOut, score_heuristic, random.Random(0),
                    brain=brain_for(llm, "likeability_scoring", a), prompt=PROMPT,
                    max_tokens=80, temperature=0.0,
                )
                d = await policy.decide(view)
                summary, source, out, brain = view.summary, view.source, d.value, d.brain
                impressions.append({"observer": a, "person": b, "source": source,
                                    "summary": summary, "score": out.score, "brain": brain})
        data["impressions"] = impressions
        data["graph"] = graph
        data["agents"] = [
            {"agent": r.name, "true_likeability": r.likeability, "extroversion": r.extroversion,
             "traits": " ".join(r.traits)}
            for r in village.resolved if r.name in village.agents
        ]

    await run_village(spec, opts, p.duration_s, None, after, agent_limit=opts.agents)
    data["brains"] = brains_seen(read_events(spec.run_dir))
    return data


async def run_experiment(exp: ExperimentFile, opts: ExperimentOptions, out: Path) -> dict[str, Any]:
    p: PerceptionProtocol = parse_protocol(exp, PerceptionProtocol, out / "config.yaml")
    imp_rows: list[dict[str, Any]] = []
    agent_rows: list[dict[str, Any]] = []
    r_rows: list[dict[str, Any]] = []
    brains: Counter[str] = Counter()
    configured = ""
    summary: dict[str, Any] = {}
    plot_dir = out / "plots"
    for spec in plan_runs(exp, opts, out):
        configured = brain_label(spec.config)
        if opts.progress:
            opts.progress(f"run {spec.label}")
        run = await _one_run(spec, opts, p)
        brains.update(run["brains"])
        cond = spec.condition.name
        tag = {"condition": cond, "repeat": spec.repeat}
        imp_rows += [{**tag, **i} for i in run["impressions"]]
        truth = {a["agent"]: a["true_likeability"] for a in run["agents"]
                 if a["true_likeability"] is not None}
        extro = {a["agent"]: a["extroversion"] for a in run["agents"]
                 if a["extroversion"] is not None}
        perc = perceived(run["impressions"])
        for a in run["agents"]:
            pm, obs = perc.get(a["agent"], (math.nan, 0))
            agent_rows.append({**tag, **a, "perceived_likeability": pm, "observers": obs})
        rk = r_by_min_observers(truth, perc, p.max_observers)
        r_rows += [{**tag, **r} for r in rk]
        at_k = rk[min(p.min_observers, p.max_observers) - 1]
        indeg = {n: perc.get(n, (0.0, 0))[1] for n in extro}
        deg_fit = M.pearson([extro[n] for n in indeg], [float(v) for v in indeg.values()])
        asym = asymmetries(run["graph"])
        summary.setdefault(cond, {"runs": []})["runs"].append({
            "repeat": spec.repeat, "impressions": len(run["impressions"]),
            "r_at_min_observers": at_k, "r_by_min_observers": rk,
            "in_degree_vs_extroversion": {"r": deg_fit.r, "slope": deg_fit.slope, "n": deg_fit.n},
            "asymmetry": {"pairs": len(asym),
                          "mean_abs": M.mean_ci([abs(x) for x in asym]).mean,
                          "share_within_1": (sum(abs(x) <= 1 for x in asym) / len(asym))
                          if asym else math.nan},
            "sources": dict(Counter(i["source"] for i in run["impressions"])),
        })
        if spec.repeat == 0:
            names = [n for n in truth if n in perc]
            fit = M.pearson([truth[n] for n in names], [perc[n][0] for n in names])
            plots.scatter_fit(plot_dir / f"perceived_vs_true_{cond}.png",
                              [truth[n] for n in names], [perc[n][0] for n in names],
                              slope=fit.slope, intercept=fit.intercept,
                              title=f"Perceived vs true likeability ({cond}, r={fit.r:.2f})",
                              xlabel="true likeability (traits)", ylabel="perceived (mean score)")
            fitd = M.pearson([extro[n] for n in indeg], [float(indeg[n]) for n in indeg])
            plots.scatter_fit(plot_dir / f"in_degree_vs_extroversion_{cond}.png",
                              [extro[n] for n in indeg], [float(indeg[n]) for n in indeg],
                              slope=fitd.slope, intercept=fitd.intercept,
                              title=f"In-degree vs extroversion ({cond})",
                              xlabel="extroversion", ylabel="observers (in-degree)")
            plots.histogram(plot_dir / f"sentiment_asymmetry_{cond}.png", asym,
                            bins=p.asymmetry_bins, title=f"Sentiment asymmetry ({cond})",
                            xlabel="s(a->b) - s(b->a)")
            plots.graph(plot_dir / f"social_graph_{cond}.png", sorted(truth), run["graph"],
                        title=f"Social graph ({cond}): edges red = likes, blue = dislikes",
                        node_values=truth)
    write_csv(out / "impressions.csv", imp_rows,
              ["condition", "repeat", "observer", "person", "source", "score", "brain", "summary"])
    write_csv(out / "agents.csv", agent_rows,
              ["condition", "repeat", "agent", "true_likeability", "perceived_likeability",
               "observers", "extroversion", "traits"])
    write_csv(out / "r_by_observers.csv", r_rows,
              ["condition", "repeat", "min_observers", "agents", "r", "slope", "intercept"])
    series: dict[str, tuple[list[float], list[float]]] = {}
    slopes: dict[str, tuple[list[float], list[float]]] = {}
    for cond, s in summary.items():
        rk = s["runs"][0]["r_by_min_observers"]
        series[cond] = ([float(r["min_observers"]) for r in rk], [r["r"] for r in rk])
        slopes[cond] = ([float(r["min_observers"]) for r in rk], [r["slope"] for r in rk])
        s["r_mean"] = M.mean_ci([r["r_at_min_observers"]["r"] for r in s["runs"]],
                                p.confidence).mean
    plots.lines(plot_dir / "r_vs_min_observers.png", series,
                title="Pearson r vs minimum number of observers (repeat 0)",
                xlabel="minimum observers", ylabel="r")
    plots.lines(plot_dir / "slope_vs_min_observers.png", slopes,
                title="Slope vs minimum number of observers (repeat 0)",
                xlabel="minimum observers", ylabel="slope")
    metrics = {"experiment": exp.experiment, "brain": configured, "brains_seen": dict(brains),
               "time_scale": opts.time_scale, "protocol": p.model_dump(), "conditions": summary}
    write_json(out / "metrics.json", metrics)
    table = md_table(
        ["condition", "impressions", f"r (>= {p.min_observers} observers)", "agents in r",
         "in-degree vs extroversion r", "asymmetric pairs"]
        + ([] if is_pipeline_check(configured) else ["paper"]),
        [[c, s["runs"][0]["impressions"], s["r_mean"],
          s["runs"][0]["r_at_min_observers"]["agents"],
          s["runs"][0]["in_degree_vs_extroversion"]["r"], s["runs"][0]["asymmetry"]["pairs"],
          *paper_column(exp, configured, c)] for c, s in summary.items()],
    )
    report = report_header("Social perception", exp, opts, brains, configured) + table
    report += (
        "\n\nImpressions come from the social module's summaries (or, without it, from the "
        "lines an agent heard); scores 0-10. r is undefined (n/a) when fewer than two agents "
        "have enough observers - e.g. without a world, where nobody meets anybody.\n\n"
        "Plots: `plots/perceived_vs_true_<c>.png`, `plots/r_vs_min_observers.png`, "
        "`plots/slope_vs_min_observers.png`, `plots/in_degree_vs_extroversion_<c>.png`, "
        "`plots/sentiment_asymmetry_<c>.png`, `plots/social_graph_<c>.png`.\n\n"
        "True likeability and extroversion (from the personality generator) are used only here, "
        "on the scoring side; no agent and no scorer's view gets them.\n"
    )
    report += paper_section(exp, configured)
    (out / "report.md").write_text(report, encoding="utf-8")
    return metrics
