"""Who lives in a tax run: the experiment's own ledger of its members.

The roster is experiment bookkeeping (who is an influencer, which occupation a constituent
was given) used to build the village file and, afterwards, to analyse the run. It never
reaches an agent: each agent gets only its own config (name, traits, inventory, location
memories); listeners are not told who is an influencer, and an influencer differs from a
constituent only by the traits of its own profile.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from agent_runtime.config.names import generate_names

Role = Literal["constituent", "influencer"]


@dataclass(frozen=True, slots=True)
class Member:
    """A voter of the experiment's ledger (the election manager does not vote)."""

    name: str
    role: Role
    occupation: str  # "influencer" for influencers
    traits: tuple[str, ...]


def roster(
    *,
    influencers: int,
    constituents: int,
    occupations: Sequence[str],
    constituent_traits: Sequence[str],
    occupation_traits: Mapping[str, Sequence[str]],
    influencer_traits: Sequence[str],
    seed: int,
    voters: int | None = None,
) -> list[Member]:
    """Influencers first, then constituents with occupations (cycled); names seeded.

    ``voters`` (the CLI's ``--agents``) shrinks the village: about a third influencers
    (at least one when there are two or more voters)."""
    n_inf, n_con = influencers, constituents
    if voters is not None:
        n_inf = min(influencers, max(1, voters // 3)) if voters > 1 else 0
        n_con = max(1, voters - n_inf)
    names = generate_names(n_inf + n_con, random.Random(seed), set(), None)
    members = [
        Member(names[i], "influencer", "influencer", tuple(influencer_traits)) for i in range(n_inf)
    ]
    for j in range(n_con):
        occ = occupations[j % len(occupations)]
        members.append(Member(names[n_inf + j], "constituent", occ,
                              (*constituent_traits, *occupation_traits[occ])))
    return members
