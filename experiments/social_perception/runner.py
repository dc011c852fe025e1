"""Social perception: does what agents think of each other track true likeability?

At the end of a run every agent's impressions of the others are collected: the social
module's per-person summary (``Social.people``), or - when an agent has none, as in the
``no_social`` ablation - the lines it heard from that person (``Conversation``). Each
impression is scored 0-10 (LLM prompt ``prompts/likeability.md``; heuristic: the social
module's sentiment, or the friendly/hostile words of the heard lines). Perceived
likeability of B = mean score over B's observers; true likeability comes from the traits
(scored by :mod:`experiments.social_perception.truth`, the experiment's own ground truth).

Outputs: ``impressions.csv`` (observer, person, summary, score), ``agents.csv`` (true and
perceived likeability, observers, extroversion), ``r_by_observers.csv``, metrics, plots
(scatter, r vs minimum observers, in-degree vs extroversion, asymmetry histogram, graph).
"""

from __future__ import annotations

import logging
import random
from collections import defaultdict
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from agent_runtime.clock import Clock
from agent_runtime.config.models import Strict
from agent_runtime.llm.brain import brain_of
from agent_runtime.policy import View, make_policy
from agent_runtime.prompts import fenced, prompt_path, untrusted
from experiments import common, plots
from experiments import metrics as M
from experiments.runner_base import RunBook, parse_protocol
from experiments.social_perception import recompute
from experiments.social_perception.truth import true_scores
from experiments.spec import ExperimentFile, ExperimentOptions, RunSpec

log = logging.getLogger(__name__)
PROMPT = prompt_path("experiments.social_perception", "likeability")


class PerceptionProtocol(Strict):
    duration_s: float = Field(default=14400.0, gt=0)
    min_observers: int = Field(default=5, ge=1)
    max_observers: int = Field(default=11, ge=1)
    score_with: Literal["auto", "heuristic", "llm"] = "auto"
    asymmetry_bins: int = Field(default=20, ge=2)
    confidence: float = Field(default=0.95, gt=0, lt=1)


PROTOCOL_MODEL = PerceptionProtocol


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


def heard_by(conv: Any, names: Any, observer: str) -> dict[str, list[str]]:
    """person -> the lines ``observer`` heard them say (its own Conversation section)."""
    heard: dict[str, list[str]] = defaultdict(list)
    for u in conv.lines:
        if u.speaker != observer and u.speaker in names:
            heard[u.speaker].append(u.text)
    return heard


def impression_view(observer: str, person: str, social: Any,
                    heard: list[str]) -> ImpressionView | None:
    """``observer``'s impression of ``person``: its social module's summary and sentiment,
    else the last lines it heard them say; None when it has neither."""
    pv = social.people.get(person)
    if pv is not None and pv.summary:
        return ImpressionView(observer=observer, person=person, source="social",
                              summary=pv.summary, sentiment=pv.sentiment)
    if heard:
        lines = tuple(heard[-8:])
        return ImpressionView(observer=observer, person=person, source="heard",
                              summary=" / ".join(lines), lines=lines)
    return None


async def score_impression(llm: Any, view: ImpressionView) -> tuple[ScoreOut, str]:
    """The 0-10 score of one impression (LLM ``prompts/likeability.md`` or the heuristic)
    and the brain that gave it."""
    policy = make_policy(
        "likeability_scoring", ScoreOut, score_heuristic, random.Random(0),
        brain=brain_of(llm, "likeability_scoring", view.observer), prompt=PROMPT,
        max_tokens=80, temperature=0.0,
    )
    d = await policy.decide(view)
    return d.value, d.brain


async def _one_run(spec: RunSpec, opts: ExperimentOptions, p: PerceptionProtocol) -> dict[str, Any]:
    from agent_runtime.state.sections import Conversation, Social

    data: dict[str, Any] = {}

    async def after(village: Any, tl: Clock) -> None:
        llm = village.services.llm if p.score_with != "heuristic" else None
        impressions: list[dict[str, Any]] = []
        graph: dict[str, dict[str, float]] = {}
        await common.fresh_state(village)  # agents in workers: their state from Redis
        names = common.agent_names(village)
        for a in names:
            st = village.store.agent(a)
            social = st.get("social", Social)
            conv = st.get("conversation", Conversation)
            graph[a] = {b: pv.sentiment for b, pv in social.people.items()
                        if b in names and b != a and pv.summary}
            heard = heard_by(conv, names, a)
            for b in names:
                if b == a:
                    continue
                view = impression_view(a, b, social, heard.get(b, []))
                if view is None:
                    continue
                out, brain = await score_impression(llm, view)
                impressions.append({"observer": a, "person": b, "source": view.source,
                                    "summary": view.summary, "score": out.score, "brain": brain})
        data["impressions"] = impressions
        data["sentiments"] = [{"observer": a, "person": b, "sentiment": v}
                              for a, outs in graph.items() for b, v in outs.items()]
        data["agents"] = [
            {"agent": r.name, "true_likeability": like, "extroversion": extro,
             "traits": " ".join(r.traits)}
            for r in village.resolved
            for extro, like in [true_scores(r.traits)]
        ]

    await common.run_village(spec, opts, p.duration_s, None, after, agent_limit=opts.agents)
    return data


async def run_experiment(exp: ExperimentFile, opts: ExperimentOptions, out: Path) -> dict[str, Any]:
    p: PerceptionProtocol = parse_protocol(exp, PerceptionProtocol, out / "config.yaml")
    book = RunBook(exp, opts, out)
    for spec in book.runs():
        run = await _one_run(spec, opts, p)
        book.done(spec, len(run["agents"]))
        book.collect(spec, impressions=run["impressions"], agents=run["agents"],
                     sentiments=run["sentiments"])
    book.write("impressions", recompute.IMPRESSION_FIELDS)
    book.write("agents", recompute.AGENT_FIELDS)
    book.write("sentiments", recompute.SENTIMENT_FIELDS)
    figs = recompute.figures(out)
    _plots(out, figs, recompute.read_run(out), p)
    text = (
        "\n\nImpressions come from the social module's summaries (or, without it, from the "
        "lines an agent heard - within the hearing radius, or whispered to it); scores 0-10. "
        "Perceived likeability of B = mean score over B's observers. r is undefined (n/a) when "
        "fewer than two agents have enough observers - e.g. without a world, where nobody "
        "meets anybody.\n\nRaw data: `impressions.csv`, `agents.csv`, `sentiments.csv`, "
        "`runs.csv`; `python -m experiments.social_perception.recompute OUT` recomputes every "
        "figure above from them (also the r-by-observers curve, in `metrics.json`).\n\n"
        "Plots: `plots/perceived_vs_true_<c>.png`, `plots/r_vs_min_observers.png`, "
        "`plots/slope_vs_min_observers.png`, `plots/in_degree_vs_extroversion_<c>.png`, "
        "`plots/sentiment_asymmetry_<c>.png`, `plots/social_graph_<c>.png`.\n\n"
        "True likeability and extroversion (from the personality generator) are used only here, "
        "on the scoring side; no agent and no scorer's view gets them.\n"
    )
    return book.finish("Social perception", p, figs, recompute.tables(out, figs), text)


def _plots(out: Path, figs: dict[str, Any], runs: dict[tuple[str, int], dict[str, Any]],
           p: PerceptionProtocol) -> None:
    plot_dir = out / "plots"
    series: dict[str, tuple[list[float], list[float]]] = {}
    slopes: dict[str, tuple[list[float], list[float]]] = {}
    for cond, s in figs.items():
        rk = s["runs"][0]["r_by_min_observers"]
        series[cond] = ([float(r["min_observers"]) for r in rk], [r["r"] for r in rk])
        slopes[cond] = ([float(r["min_observers"]) for r in rk], [r["slope"] for r in rk])
        run = runs[(cond, s["runs"][0]["repeat"])]
        truth = {a["agent"]: a["true_likeability"] for a in run["agents"]}
        extro = {a["agent"]: a["extroversion"] for a in run["agents"]}
        perc = recompute.perceived(run["impressions"])
        names = [n for n in truth if n in perc]
        fit = M.pearson([truth[n] for n in names], [perc[n][0] for n in names])
        plots.scatter_fit(plot_dir / f"perceived_vs_true_{cond}.png",
                          [truth[n] for n in names], [perc[n][0] for n in names],
                          slope=fit.slope, intercept=fit.intercept,
                          title=f"Perceived vs true likeability ({cond}, r={fit.r:.2f})",
                          xlabel="true likeability (traits)", ylabel="perceived (mean score)")
        indeg = {n: float(perc.get(n, (0.0, 0))[1]) for n in extro}
        fitd = M.pearson([extro[n] for n in indeg], list(indeg.values()))
        plots.scatter_fit(plot_dir / f"in_degree_vs_extroversion_{cond}.png",
                          [extro[n] for n in indeg], list(indeg.values()),
                          slope=fitd.slope, intercept=fitd.intercept,
                          title=f"In-degree vs extroversion ({cond})",
                          xlabel="extroversion", ylabel="observers (in-degree)")
        graph = {a: dict(b) for a, b in run["graph"].items()}
        plots.histogram(plot_dir / f"sentiment_asymmetry_{cond}.png",
                        recompute.asymmetries(graph), bins=p.asymmetry_bins,
                        title=f"Sentiment asymmetry ({cond})", xlabel="s(a->b) - s(b->a)")
        plots.graph(plot_dir / f"social_graph_{cond}.png", sorted(truth), graph,
                    title=f"Social graph ({cond}): edges red = likes, blue = dislikes",
                    node_values=truth)
    plots.lines(plot_dir / "r_vs_min_observers.png", series,
                title="Pearson r vs minimum number of observers (repeat 0)",
                xlabel="minimum observers", ylabel="r")
    plots.lines(plot_dir / "slope_vs_min_observers.png", slopes,
                title="Slope vs minimum number of observers (repeat 0)",
                xlabel="minimum observers", ylabel="slope")
