"""The tax experiment's democratic process: feedback, amendments, votes, tally, new constitution.

Every step is a policy (:mod:`agent_runtime.policy`): an LLM policy (a prompt file in
``prompts/``) and a heuristic policy fed the same typed view, built by the runner only from
what the deciding party has. A member's view (:class:`MemberView`) holds its own profile
(name, traits), its current goal, the lines it heard (its conversation section), its recent
memories (its memory stream), its own opinion on the tax (``Social.opinions``), the
constitution as it was announced, and for a vote the amendments' texts. Nothing else: no
roster, no influencer list, no other agent's traits, no experiment ledger.

The election manager is played by the experiment (no body, labelled ``election_manager``);
its views are what it was given: the constitution, the feedback it received, the votes.

Heuristic brain (what it models, in one place):

- *attitude* of a member towards the tax, in [-3, 3] =
  ``trait_weight * stance_of(own traits)`` + ``heard_weight * stance_of(heard lines and
  recent memories)`` + ``opinion_weight * own opinion`` (0 when it has none), where
  :func:`modules.heuristics.stance.stance_of` reads the *content* of lines with an
  inspectable lexicon, the tax topic its village handed it (``topics/tax.yaml``; who said a
  line never enters);
- *feedback*: ``raise`` / ``lower`` above / below ``stance_threshold``, else ``keep``;
  proposed rate = the rate the member reads in the constitution
  (:func:`modules.heuristics.requests.read_rate`) moved by ``rate_step`` per unit of
  attitude (at most 2 units);
- *amendments* (election manager): one per direction (raise / lower) whose share of the
  feedback reaches ``min_support``, at the median proposed rate of its supporters; its text
  names only the new rate;
- *votes*: per amendment the member reads the proposed rate in its text and the current one
  in the constitution; yes if the change goes the way its attitude points (beyond
  ``vote_threshold``), no if the opposite way, abstain otherwise or when it cannot read a rate;
- *tally*: an amendment passes with more yes than no votes (abstentions do not count);
- *constitution*: re-rendered from the template with the rate of the last passed amendment.

The heuristic policies are deterministic functions of their view, so two members who
perceived the same get the same feedback and votes (the leakage test checks this).
"""

from __future__ import annotations

import functools
import math
import random
import statistics
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_runtime.config.topics import Topic
from agent_runtime.llm.brain import brain_of
from agent_runtime.policy import View, make_policy
from agent_runtime.prompts import fenced, prompt_path, untrusted
from modules.heuristics.requests import read_rate
from modules.heuristics.stance import stance_of

PROMPTS_PACKAGE = "experiments.tax"
MANAGER = "election_manager"
TOPIC = "tax"

Stance = Literal["lower", "keep", "raise"]
Vote = Literal["yes", "no", "abstain"]


class HeuristicSettings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    trait_weight: float = 1.0
    heard_weight: float = 1.0
    opinion_weight: float = 1.0
    stance_threshold: float = 0.2
    vote_threshold: float = 0.2
    rate_step: float = 0.05
    min_rate: float = 0.0
    max_rate: float = 0.6
    min_support: float = 0.1
    max_amendments: int = 2
    heard_lines: int = Field(default=24, ge=0)  # latest heard lines in a member's view
    memories: int = Field(default=24, ge=0)  # latest memories in a member's view


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


# --- views: what each party may know ------------------------------------------------------


class HeardLine(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    speaker: str
    text: str


class MemberView(View):
    """One member's own state, as the runner read it from the agent's Agent State."""

    name: str
    traits: tuple[str, ...] = ()
    goal: str = ""
    heard: tuple[HeardLine, ...] = ()  # its conversation section (others' lines, oldest first)
    memories: tuple[str, ...] = ()  # its memory stream (latest, oldest first)
    opinion: float | None = None  # its own Social.opinions["tax"]
    constitution: str = ""  # the constitution as it was announced
    # the tax topic its village handed it (its Identity; topics/tax.yaml): how it reads a stance
    topic: Topic | None = None

    def prompt_variables(self) -> dict[str, str]:
        opinion = ("(none yet)" if self.opinion is None
                   else f"{self.opinion:+.2f} on a scale from -1 (against) to +1 (for)")
        return {
            "name": self.name,
            "traits": " ".join(self.traits) or "(none)",
            "goal": self.goal or "(none)",
            "opinion": opinion,
            "memory": fenced(untrusted(m) for m in self.memories),
            "heard": fenced(untrusted(f"{h.speaker}: {h.text}") for h in self.heard),
            "constitution": fenced([untrusted(self.constitution, limit=4000)]),
        }


class VoteView(MemberView):
    amendments: tuple[str, ...] = ()  # the amendments' texts, in ballot order

    def prompt_variables(self) -> dict[str, str]:
        return {**super().prompt_variables(), "amendments": _numbered(self.amendments)}


class FeedbackEntry(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    member: str
    thoughts: str
    stance: Stance
    proposed_rate: float | None = None


class AmendmentsView(View):
    """What the election manager was given: the constitution and the feedback it received."""

    constitution: str
    current_rate: float
    feedback: tuple[FeedbackEntry, ...]
    max_amendments: int

    def prompt_variables(self) -> dict[str, str]:
        return {
            "constitution": fenced([untrusted(self.constitution, limit=4000)]),
            "feedback": fenced(untrusted(f"{f.member}: [{f.stance}] {f.thoughts}")
                               for f in self.feedback),
            "max_amendments": str(self.max_amendments),
        }


class TallyView(View):
    amendments: tuple[str, ...]
    counts: tuple[tuple[int, int, int], ...]  # (yes, no, abstain) per amendment

    def prompt_variables(self) -> dict[str, str]:
        lines = [f"{i + 1}. yes {y}, no {n}, abstain {a}" for i, (y, n, a) in enumerate(self.counts)]
        return {"amendments": _numbered(self.amendments), "votes": "\n".join(lines)}


class RewriteView(View):
    constitution: str
    passed: tuple[str, ...]
    passed_rates: tuple[float | None, ...]
    current_rate: float

    def prompt_variables(self) -> dict[str, str]:
        return {"constitution": fenced([untrusted(self.constitution, limit=4000)]),
                "passed": _numbered(self.passed)}


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


# --- heuristic policies (functions of the view only) ----------------------------------------


def attitude(view: MemberView, s: HeuristicSettings) -> float:
    """The member's attitude towards the tax, from its own profile, what it heard and
    remembered (by content), and its own opinion."""
    if view.topic is None:
        own = heard = 0.0
    else:
        own = stance_of(view.traits, view.topic)
        heard = stance_of([h.text for h in view.heard] + list(view.memories), view.topic)
    opinion = view.opinion if view.opinion is not None else 0.0
    return s.trait_weight * own + s.heard_weight * heard + s.opinion_weight * opinion


def _clamp(rate: float, s: HeuristicSettings) -> float:
    return round(max(s.min_rate, min(s.max_rate, rate)), 2)  # whole percent


def feedback_heuristic(s: HeuristicSettings, view: MemberView, rng: random.Random) -> FeedbackOut:
    a = attitude(view, s)
    stance: Stance = ("raise" if a > s.stance_threshold
                      else "lower" if a < -s.stance_threshold else "keep")
    current = read_rate(view.constitution)
    rate: float | None = None
    if stance != "keep" and current is not None:
        rate = _clamp(current + s.rate_step * math.copysign(min(2.0, abs(a)), a), s)
    words = {
        "raise": "The common chests need more; I would pay a bigger share",
        "lower": "The tax takes too much of what I gather; it should be lower",
        "keep": "The tax seems fair enough as it is",
    }[stance]
    wish = f" ({round(rate * 100)}% would be right)." if rate is not None else "."
    return FeedbackOut(thoughts=words + wish, stance=stance, proposed_rate=rate)


def vote_heuristic(s: HeuristicSettings, view: VoteView, rng: random.Random) -> VotesOut:
    a = attitude(view, s)
    current = read_rate(view.constitution)
    votes: list[Vote] = []
    for text in view.amendments:
        proposed = read_rate(text)
        if current is None or proposed is None or math.isclose(proposed, current):
            votes.append("abstain")
            continue
        score = math.copysign(1.0, proposed - current) * a
        votes.append("yes" if score > s.vote_threshold
                     else "no" if score < -s.vote_threshold else "abstain")
    return VotesOut(votes=votes)


def amendments_heuristic(s: HeuristicSettings, view: AmendmentsView,
                         rng: random.Random) -> AmendmentsOut:
    total = max(1, len(view.feedback))
    drafts = []
    for stance in ("lower", "raise"):
        group = [f for f in view.feedback if f.stance == stance]
        if not group or len(group) / total < s.min_support:
            continue
        rates = [f.proposed_rate for f in group if f.proposed_rate is not None]
        step = -s.rate_step if stance == "lower" else s.rate_step
        rate = _clamp(statistics.median(rates) if rates else view.current_rate + step, s)
        if math.isclose(rate, view.current_rate):
            continue
        drafts.append((len(group), AmendmentDraft(
            text=f"The tax becomes {round(rate * 100)}% of each member's inventory in every "
                 "tax season.",
            tax_rate=rate)))
    drafts.sort(key=lambda d: -d[0])
    return AmendmentsOut(amendments=[d for _, d in drafts[: s.max_amendments]])


def tally_heuristic(view: TallyView, rng: random.Random) -> TallyOut:
    return TallyOut(passed=[i + 1 for i, (y, n, _) in enumerate(view.counts) if y > n])


def rewrite_heuristic(template: str, view: RewriteView, rng: random.Random) -> ConstitutionOut:
    rate = view.current_rate
    for r in view.passed_rates:
        if r is not None:
            rate = r
    return ConstitutionOut(text=render_constitution(template, rate, view.passed), tax_rate=rate)


# --- the process ------------------------------------------------------------------------


def member_rng(seed: int, name: str) -> random.Random:
    """A member's own seeded rng (stable across processes)."""
    return random.Random(seed ^ zlib.crc32(name.encode("utf-8")))


class Democracy:
    """Runs the steps of one run; ``llm`` is the run's LLMService (None -> heuristic)."""

    def __init__(self, llm: Any, settings: HeuristicSettings, template: str, seed: int) -> None:
        self.llm = llm
        self.s = settings
        self.template = template
        self.seed = seed

    def _policy(self, module: str, agent: str, output: type[Any], fn: Callable[..., Any],
                prompt: str, max_tokens: int, temperature: float = 0.7) -> Any:
        return make_policy(
            module, output, fn, member_rng(self.seed, agent),
            brain=brain_of(self.llm, module, agent),
            prompt=prompt_path(PROMPTS_PACKAGE, prompt), max_tokens=max_tokens,
            temperature=temperature,
        )

    async def feedback(self, view: MemberView) -> tuple[FeedbackOut, str]:
        policy = self._policy("tax_feedback", view.name, FeedbackOut,
                              functools.partial(feedback_heuristic, self.s), "feedback", 300)
        d = await policy.decide(view)
        return d.value, d.brain

    async def vote(self, view: VoteView) -> tuple[list[Vote], str]:
        policy = self._policy("tax_vote", view.name, VotesOut,
                              functools.partial(vote_heuristic, self.s), "vote", 120)
        d = await policy.decide(view)
        votes: list[Vote] = list(d.value.votes)[: len(view.amendments)]
        votes += ["abstain"] * (len(view.amendments) - len(votes))  # a short answer abstains
        return votes, d.brain

    async def amendments(
        self, constitution: Constitution, feedback: Mapping[str, FeedbackOut]
    ) -> tuple[list[AmendmentDraft], str]:
        view = AmendmentsView(
            constitution=constitution.text, current_rate=constitution.tax_rate,
            feedback=tuple(FeedbackEntry(member=k, **f.model_dump())
                           for k, f in sorted(feedback.items())),
            max_amendments=self.s.max_amendments,
        )
        policy = self._policy("tax_amendments", MANAGER, AmendmentsOut,
                              functools.partial(amendments_heuristic, self.s), "amendments", 500)
        d = await policy.decide(view)
        return d.value.amendments[: self.s.max_amendments], d.brain

    async def tally(
        self, amendments: Sequence[AmendmentDraft], votes: Mapping[str, list[Vote]]
    ) -> tuple[list[int], list[int], str]:
        """(passed by the policy, passed by counting, brain); numbers are 1-based."""
        counted = count_passed(len(amendments), votes)
        if not amendments:
            return [], [], "rule"
        counts = []
        for i in range(len(amendments)):
            col = [v[i] for v in votes.values() if i < len(v)]
            counts.append((col.count("yes"), col.count("no"), col.count("abstain")))
        view = TallyView(amendments=tuple(a.text for a in amendments), counts=tuple(counts))
        policy = self._policy("tax_tally", MANAGER, TallyOut, tally_heuristic, "tally", 80, 0.0)
        d = await policy.decide(view)
        passed = sorted({i for i in d.value.passed if 1 <= i <= len(amendments)})
        return passed, counted, d.brain

    async def rewrite(
        self, constitution: Constitution, amendments: Sequence[AmendmentDraft], passed: list[int]
    ) -> Constitution:
        chosen = [amendments[i - 1] for i in passed]
        if not chosen:
            return constitution.model_copy(update={"version": constitution.version + 1,
                                                   "brain": "unchanged"})
        view = RewriteView(constitution=constitution.text, passed=tuple(a.text for a in chosen),
                           passed_rates=tuple(a.tax_rate for a in chosen),
                           current_rate=constitution.tax_rate)
        policy = self._policy("tax_constitution", MANAGER, ConstitutionOut,
                              functools.partial(rewrite_heuristic, self.template),
                              "constitution", 800, 0.2)
        d = await policy.decide(view)
        return Constitution(version=constitution.version + 1, text=d.value.text,
                            tax_rate=_clamp(d.value.tax_rate, self.s), brain=d.brain)


def count_passed(n: int, votes: Mapping[str, list[Vote]]) -> list[int]:
    """1-based numbers of the amendments with more yes than no votes."""
    passed = []
    for i in range(n):
        col = [v[i] for v in votes.values() if i < len(v)]
        if col.count("yes") > col.count("no"):
            passed.append(i + 1)
    return passed


def _numbered(items: Sequence[str]) -> str:
    return fenced(untrusted(f"{i + 1}. {a}") for i, a in enumerate(items))
