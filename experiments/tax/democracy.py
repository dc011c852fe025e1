"""The tax experiment's democratic process: feedback, amendments, votes, tally, new constitution.

Each step has an LLM policy (a prompt file in ``prompts/`` and a pydantic output) and a
heuristic policy (seeded, no LLM); every result carries the label of the brain that made it.

Heuristic brain (what it models, in one place):

- *attitude* of a member towards taxes = trait stance (influencers: +1 pro / -1 anti, scaled
  by ``trait_weight``; constituents: keywords in their traits) + ``exposure_weight`` x the
  stances of the influencers the member heard or interacted with (capped) + Gaussian noise;
- *feedback* stance: ``raise`` / ``lower`` above / below ``stance_threshold``, else ``keep``;
  proposed rate = current rate moved by ``rate_step`` per unit of attitude (capped at 2);
- *amendments* (election manager): one per direction (raise / lower) whose share of the
  feedback reaches ``min_support``, at the median proposed rate of its supporters;
- *votes*: yes if the amendment moves the rate the way the member wants (beyond
  ``vote_threshold``), no if the opposite way, otherwise drawn from ``neutral_vote``;
- *tally*: an amendment passes with more yes than no votes (abstentions do not count);
- *constitution*: re-rendered from the template with the rate of the last passed amendment.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from experiments.llm import decide

PROMPTS = Path(__file__).resolve().parent / "prompts"

Stance = Literal["lower", "keep", "raise"]
Vote = Literal["yes", "no", "abstain"]


class HeuristicSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    trait_weight: float = 1.5
    pro_words: tuple[str, ...] = ("taxes are fair", "public good", "common chest", "pay their share")
    anti_words: tuple[str, ...] = ("taxes are theft", "keep what they earn", "hate taxes")
    exposure_weight: float = 0.25  # per heard line / interaction with an influencer
    exposure_cap: float = 2.0
    noise_sd: float = 0.3
    stance_threshold: float = 0.5
    vote_threshold: float = 0.5
    rate_step: float = 0.05
    min_rate: float = 0.0
    max_rate: float = 0.6
    min_support: float = 0.1
    max_amendments: int = 2
    neutral_vote: dict[str, float] = Field(
        default_factory=lambda: {"yes": 0.2, "no": 0.4, "abstain": 0.4}
    )


class Constitution(BaseModel):
    model_config = ConfigDict(frozen=True)
    version: int
    text: str
    tax_rate: float
    brain: str = "initial"


def render_constitution(template: str, rate: float, amendments: Sequence[str] = ()) -> str:
    text = template.format(rate_pct=round(rate * 100))
    if amendments:
        text += "\n\nAmendments adopted by vote:\n" + "\n".join(f"- {a}" for a in amendments)
    return text


@dataclass
class Member:
    """A voter: a constituent or an influencer (the election manager does not vote)."""

    name: str
    role: str  # "constituent" | "influencer"
    occupation: str
    traits: tuple[str, ...]
    stance: int = 0  # influencers: +1 pro-tax, -1 anti-tax


@dataclass
class MemberContext:
    """What a member knows when asked: read from the agent's state (never private fields)."""

    goal: str = ""
    memory: list[str] = field(default_factory=list)
    heard: list[tuple[str, str]] = field(default_factory=list)  # (speaker, text)
    interactions: dict[str, int] = field(default_factory=dict)  # person -> interactions


# --- policy outputs ---------------------------------------------------------------------


class FeedbackOut(BaseModel):
    thoughts: str = Field(max_length=600)
    stance: Stance
    proposed_rate: float | None = Field(default=None, ge=0, le=1)


class AmendmentDraft(BaseModel):
    text: str = Field(max_length=300)
    tax_rate: float | None = Field(default=None, ge=0, le=1)


class AmendmentsOut(BaseModel):
    amendments: list[AmendmentDraft] = Field(default_factory=list)


class VotesOut(BaseModel):
    votes: list[Vote]


class TallyOut(BaseModel):
    passed: list[int] = Field(default_factory=list)


class ConstitutionOut(BaseModel):
    text: str = Field(max_length=4000)
    tax_rate: float = Field(ge=0, le=1)


# --- the process ------------------------------------------------------------------------


class Democracy:
    """Runs the steps for one run; ``llm`` is the run's LLMService (None -> heuristic)."""

    def __init__(
        self,
        llm: Any,
        rng: random.Random,
        settings: HeuristicSettings,
        influencers: dict[str, int],
        template: str,
    ) -> None:
        self.llm = llm
        self.rng = rng
        self.s = settings
        self.influencers = influencers  # name -> stance
        self.template = template

    # attitude of a member towards taxes (heuristic brain)
    def attitude(self, m: Member, ctx: MemberContext) -> float:
        s = self.s
        if m.role == "influencer":
            base = s.trait_weight * m.stance
        else:
            low = " ".join(m.traits).lower()
            base = s.trait_weight * (
                sum(w in low for w in s.pro_words) - sum(w in low for w in s.anti_words)
            )
        exposure = 0.0
        for speaker, _ in ctx.heard:
            exposure += self.influencers.get(speaker, 0)
        for person, n in ctx.interactions.items():
            exposure += self.influencers.get(person, 0) * n
        push = max(-s.exposure_cap, min(s.exposure_cap, s.exposure_weight * exposure))
        return base + push + self.rng.gauss(0.0, s.noise_sd)

    def _clamp(self, rate: float) -> float:
        return round(max(self.s.min_rate, min(self.s.max_rate, rate)), 2)  # whole percent

    async def feedback(
        self, m: Member, ctx: MemberContext, constitution: Constitution
    ) -> tuple[FeedbackOut, str, float]:
        a = self.attitude(m, ctx)

        def heuristic() -> FeedbackOut:
            t = self.s.stance_threshold
            stance: Stance = "raise" if a > t else "lower" if a < -t else "keep"
            move = 0.0 if stance == "keep" else math.copysign(min(2.0, abs(a)), a)
            rate = self._clamp(constitution.tax_rate + self.s.rate_step * move)
            words = {
                "raise": "The common chest needs more; I would pay a bigger share.",
                "lower": "The tax takes too much of what I gather; it should be lower.",
                "keep": "The tax seems fair enough as it is.",
            }
            return FeedbackOut(
                thoughts=f"{words[stance]} (attitude {a:+.2f})",
                stance=stance,
                proposed_rate=None if stance == "keep" else rate,
            )

        out, brain = await decide(
            self.llm, module="tax_feedback", agent=m.name, prompt=PROMPTS / "feedback.md",
            variables=_member_vars(m, ctx, constitution), output=FeedbackOut,
            heuristic=heuristic, max_tokens=300,
        )
        return out, brain, a

    async def amendments(
        self, constitution: Constitution, feedback: dict[str, FeedbackOut]
    ) -> tuple[list[AmendmentDraft], str]:
        def heuristic() -> AmendmentsOut:
            total = max(1, len(feedback))
            drafts = []
            for stance in ("lower", "raise"):
                group = [f for f in feedback.values() if f.stance == stance]
                if len(group) / total < self.s.min_support:
                    continue
                rates = [f.proposed_rate for f in group if f.proposed_rate is not None]
                rate = self._clamp(statistics.median(rates) if rates else (
                    constitution.tax_rate + (-1 if stance == "lower" else 1) * self.s.rate_step))
                if abs(rate - constitution.tax_rate) < 1e-9:
                    continue
                drafts.append((len(group), AmendmentDraft(
                    text=f"{'Lower' if stance == 'lower' else 'Raise'} the tax rate from "
                         f"{round(constitution.tax_rate * 100)}% to {round(rate * 100)}%.",
                    tax_rate=rate)))
            drafts.sort(key=lambda d: -d[0])
            return AmendmentsOut(amendments=[d for _, d in drafts[: self.s.max_amendments]])

        lines = "\n".join(
            f"- {name}: [{f.stance}] {f.thoughts}" for name, f in sorted(feedback.items())
        )
        out, brain = await decide(
            self.llm, module="tax_amendments", agent="election_manager",
            prompt=PROMPTS / "amendments.md",
            variables={"constitution": constitution.text, "feedback": _quote(lines),
                       "max_amendments": str(self.s.max_amendments)},
            output=AmendmentsOut, heuristic=heuristic, max_tokens=500,
        )
        return out.amendments[: self.s.max_amendments], brain

    async def vote(
        self, m: Member, ctx: MemberContext, constitution: Constitution,
        amendments: Sequence[AmendmentDraft],
    ) -> tuple[list[Vote], str, float]:
        a = self.attitude(m, ctx)

        def heuristic() -> VotesOut:
            votes: list[Vote] = []
            for am in amendments:
                d = 0.0
                if am.tax_rate is not None:
                    d = math.copysign(1.0, am.tax_rate - constitution.tax_rate) if (
                        am.tax_rate != constitution.tax_rate) else 0.0
                score = d * a
                if score > self.s.vote_threshold:
                    votes.append("yes")
                elif score < -self.s.vote_threshold:
                    votes.append("no")
                else:
                    p = self.s.neutral_vote
                    pick = self.rng.choices(list(p), weights=list(p.values()), k=1)[0]
                    votes.append(pick if pick in ("yes", "no") else "abstain")  # type: ignore[arg-type]
            return VotesOut(votes=votes)

        variables = _member_vars(m, ctx, constitution)
        variables["amendments"] = _numbered(amendments)
        out, brain = await decide(
            self.llm, module="tax_vote", agent=m.name, prompt=PROMPTS / "vote.md",
            variables=variables, output=VotesOut, heuristic=heuristic, max_tokens=120,
        )
        votes = list(out.votes)[: len(amendments)]
        votes += ["abstain"] * (len(amendments) - len(votes))  # a short LLM answer abstains
        return votes, brain, a

    async def tally(
        self, amendments: Sequence[AmendmentDraft], votes: dict[str, list[Vote]]
    ) -> tuple[list[int], list[int], str]:
        """(passed by the policy, passed by counting, brain); numbers are 1-based."""
        counted = count_passed(len(amendments), votes)
        if not amendments:
            return [], [], "rule"
        lines = []
        for i in range(len(amendments)):
            col = [v[i] for v in votes.values() if i < len(v)]
            lines.append(f"{i + 1}. yes {col.count('yes')}, no {col.count('no')}, "
                         f"abstain {col.count('abstain')}")
        out, brain = await decide(
            self.llm, module="tax_tally", agent="election_manager", prompt=PROMPTS / "tally.md",
            variables={"amendments": _numbered(amendments), "votes": "\n".join(lines)},
            output=TallyOut, heuristic=lambda: TallyOut(passed=counted), max_tokens=80,
            temperature=0.0,
        )
        passed = sorted({i for i in out.passed if 1 <= i <= len(amendments)})
        return passed, counted, brain

    async def rewrite(
        self, constitution: Constitution, amendments: Sequence[AmendmentDraft], passed: list[int]
    ) -> Constitution:
        chosen = [amendments[i - 1] for i in passed]
        if not chosen:
            return constitution.model_copy(update={"version": constitution.version + 1,
                                                   "brain": "unchanged"})

        def heuristic() -> ConstitutionOut:
            rate = constitution.tax_rate
            for am in chosen:
                if am.tax_rate is not None:
                    rate = am.tax_rate
            return ConstitutionOut(
                text=render_constitution(self.template, rate, [a.text for a in chosen]),
                tax_rate=rate,
            )

        out, brain = await decide(
            self.llm, module="tax_constitution", agent="election_manager",
            prompt=PROMPTS / "constitution.md",
            variables={"constitution": constitution.text, "passed": _numbered(chosen)},
            output=ConstitutionOut, heuristic=heuristic, max_tokens=800, temperature=0.2,
        )
        return Constitution(version=constitution.version + 1, text=out.text,
                            tax_rate=self._clamp(out.tax_rate), brain=brain)


def count_passed(n: int, votes: dict[str, list[Vote]]) -> list[int]:
    """1-based numbers of the amendments with more yes than no votes."""
    passed = []
    for i in range(n):
        col = [v[i] for v in votes.values() if i < len(v)]
        if col.count("yes") > col.count("no"):
            passed.append(i + 1)
    return passed


def _numbered(items: Sequence[AmendmentDraft]) -> str:
    return "\n".join(f"{i + 1}. {a.text}" for i, a in enumerate(items)) or "(none)"


def _quote(text: str) -> str:
    return "<<<" + text.replace("<<<", "‹‹‹").replace(">>>", "›››") + ">>>"


def _member_vars(m: Member, ctx: MemberContext, constitution: Constitution) -> dict[str, str]:
    heard = "\n".join(f"- {who}: {text}" for who, text in ctx.heard[-12:]) or "(nothing)"
    return {
        "name": m.name,
        "occupation": m.occupation,
        "traits": " ".join(m.traits) or "(none)",
        "goal": ctx.goal or "(none)",
        "memory": "\n".join(f"- {x}" for x in ctx.memory[-10:]) or "(nothing)",
        "heard": _quote(heard),
        "constitution": constitution.text,
    }
