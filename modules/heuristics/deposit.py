"""Fulfilling a perceived deposit request: generic, not an experiment's rule.

From the controller's bottleneck view only: the agent reads the latest deposit request it
heard (an announcement or a line in its conversation, parsed by
:mod:`modules.heuristics.requests`), the share it asks for (or the share of a standing
rule it heard or remembers), the chests it names (or the chests in its own location
memories), and its own opinion (``Social.opinions``) on the topic the request is about (the
first topic its village handed it, ``Identity.topics``, whose words the request mentions;
none: no opinion enters). It deposits
``share = rate * (1 + OPINION_WEIGHT * opinion)`` of what it holds: ``round(share * total)``
items in all, spread over its item kinds in proportion to how many it holds of each
(largest remainders first, so a small share of many small stacks is not rounded away to
nothing), one item kind per decision, never the same kind twice for the same request (its own action log
says what it already deposited since the request was heard); a deposit that failed is
tried once more, at another chest when there is one.

It does not set out for what it cannot do: a request whose chest it could not reach (its
own action log: the walk found no path or got stuck) is not tried again, and a deposit is
not started when the walk to the nearest chest, at the pace its skills plan walks at
(``WALK_BLOCKS_PER_S``), would end after the window it heard (it is too far away: a
decision from its own position, not a failed body). Without this rule, constituents
130-350 blocks out started hundreds of deposits that could only fail, and retried them.
"""

from __future__ import annotations

import math
from collections import Counter

from agent_runtime.bottleneck import BottleneckView
from agent_runtime.config.topics import Topic
from agent_runtime.state.sections import Utterance
from agent_runtime.world import WALK_BLOCKS_PER_S
from modules.heuristics.requests import DepositRequest, RequestState, read_positions, read_request
from modules.heuristics.stance import words

__all__ = [
    "OPINION_WEIGHT",
    "OpenRequest",
    "deposit_due",
    "open_request",
    "quotas_of",
    "rule_rate",
]

MAX_TRIES = 2  # an item kind whose deposit failed is tried once more (at another chest)
#: failures that say the body could not get to the chest: the request is not tried again
UNREACHED = frozenset({"target_out_of_reach", "stuck"})
OPINION_WEIGHT = 0.75  # opinion -1 pays a quarter of the asked share, +1 pays 1.75x
DEFAULT_WINDOW_S = 60.0  # how long a request without a stated window is taken as open

OpenRequest = tuple[Utterance, DepositRequest]


def _heard(view: BottleneckView) -> list[Utterance]:
    c = view.conversation
    me = view.identity.name
    seen = {(u.speaker, u.text, u.at) for u in c.lines}
    extra = [a for a in c.announcements if (a.speaker, a.text, a.at) not in seen]
    return sorted((u for u in [*extra, *c.lines] if u.speaker != me), key=lambda u: u.at)


def request_words(view: BottleneckView) -> tuple[str, ...]:
    """The words of its village's topics that make a line a request (its Identity)."""
    return tuple(w for t in view.identity.topics for w in t.request_words)


def topic_of(text: str, topics: tuple[Topic, ...]) -> Topic | None:
    """The first of ``topics`` whose words (mentions or request words) ``text`` has."""
    said = set(words(text))
    for t in topics:
        if said.intersection(t.mentions) or said.intersection(w.lower() for w in t.request_words):
            return t
    return None


def open_request(view: BottleneckView) -> OpenRequest | None:
    """The latest deposit request heard, if still open (no close heard, window not over).

    The same request heard twice (an announcement and its echo in chat) counts from the
    first time it was heard. A stated window is read as said (seconds of the agent's clock);
    without one, a request counts as open for ``DEFAULT_WINDOW_S`` of the agent's time."""
    latest: OpenRequest | None = None
    asking = request_words(view)
    for u in _heard(view):
        r = read_request(u.text, asking)
        if r is None or r.state is RequestState.RULE:
            continue
        if r.state is RequestState.CLOSED:
            latest = None
        elif latest is None or latest[0].text != u.text:
            latest = (u, r)
    if latest is None:
        return None
    u, r = latest
    if view.now - u.at > _window(view, r) + view.seconds(5.0):  # a margin for hearing it late
        return None
    return latest


def rule_rate(view: BottleneckView) -> float | None:
    """The share of a standing rule the agent heard or remembers (latest first)."""
    texts = [u.text for u in _heard(view)]
    wm = view.working_memory
    texts += [*wm.retrieved, *wm.items]
    asking = request_words(view)
    for text in reversed(texts):
        r = read_request(text, asking)
        if r is not None and r.state is RequestState.RULE and r.rate is not None:
            return r.rate
    return None


Chest = tuple[int, int, int]


def _chest(view: BottleneckView, request: DepositRequest, failed: set[Chest]) -> Chest | None:
    """The nearest chest named by the request (else in its own location memories), avoiding
    chests it already failed to reach for this request while others remain."""
    chests = list(request.chests)
    if not chests:
        for place in view.identity.location_memories:
            if "chest" in place.lower():
                chests += read_positions(place)
    chests = [c for c in chests if c not in failed] or chests
    if not chests:
        return None
    pos = view.perception.position
    if pos is None:
        return chests[0]
    return min(
        chests, key=lambda c: (c[0] - pos.x) ** 2 + (c[1] - pos.y) ** 2 + (c[2] - pos.z) ** 2
    )


def share_of(rate: float, opinion: float) -> float:
    return max(0.0, min(1.0, rate * (1.0 + OPINION_WEIGHT * max(-1.0, min(1.0, opinion)))))


def deposit_due(view: BottleneckView) -> tuple[str, int, tuple[int, int, int] | None, str] | None:
    """(item, count, chest, reason) of the next deposit the agent owes, or None."""
    found = open_request(view)
    if found is None:
        return None
    heard_at, request = found[0].at, found[1]
    rate = request.rate if request.rate is not None else rule_rate(view)
    if rate is None:
        return None
    mine = [r for r in view.action.recent if r.call.skill == "deposit" and r.started_at >= heard_at]
    if any(r.success is False and r.failure in UNREACHED for r in mine):
        return None  # it could not get to the chest for this request
    topic = topic_of(found[0].text, view.identity.topics)
    opinion = view.social.opinions.get(topic.name, 0.0) if topic is not None else 0.0
    share = share_of(rate, opinion)
    tries = Counter(str(r.call.args.get("item")) for r in mine)
    done = {str(r.call.args.get("item")) for r in mine if r.success}
    done |= {item for item, n in tries.items() if n >= MAX_TRIES}
    failed = {_at(r.call.args) for r in mine if r.success is False}
    running = view.action.running
    if running is not None and running.skill == "deposit":
        done.add(str(running.args.get("item")))
    inv = view.perception.inventory
    quotas = quotas_of(inv, share)
    for item, k in sorted(quotas.items(), key=lambda kv: (-kv[1], kv[0])):
        if item in done or k < 1:
            continue
        why = f"a deposit of {rate:.0%} was asked; my view of it ({opinion:+.1f}) makes it {share:.0%}"
        chest = _chest(view, request, failed)
        if not mine and too_far(view, chest, heard_at + _window(view, request)):
            return None  # it would arrive after the window: it does not set out
        return item, min(k, inv[item]), chest, why
    return None


def _window(view: BottleneckView, request: DepositRequest) -> float:
    return request.window_s if request.window_s is not None else view.seconds(DEFAULT_WINDOW_S)


def too_far(view: BottleneckView, chest: Chest | None, closes_at: float) -> bool:
    """Whether the walk from its own position to ``chest`` at WALK_BLOCKS_PER_S ends after
    ``closes_at`` (its clock). Unknown positions are not too far."""
    pos = view.perception.position
    if chest is None or pos is None:
        return False
    walk_s = math.dist((pos.x, pos.y, pos.z), chest) / WALK_BLOCKS_PER_S
    return view.now + walk_s > closes_at


def quotas_of(inventory: dict[str, int], share: float) -> dict[str, int]:
    """How many of each kind make ``round(share * total)`` items, in proportion to holdings
    (largest remainder method; ties by name)."""
    exact = {item: n * share for item, n in inventory.items() if n > 0}
    quotas = {item: math.floor(x) for item, x in exact.items()}
    owed = math.floor(sum(exact.values()) + 0.5) - sum(quotas.values())
    for item in sorted(exact, key=lambda i: (-(exact[i] - quotas[i]), i))[: max(0, owed)]:
        quotas[item] += 1
    return quotas


def _at(args: dict[str, object]) -> Chest:
    x, y, z = (round(float(str(args.get(k, 0)))) for k in "xyz")
    return (x, y, z)
