"""The experiment's ground truth: what each generated trait sentence is worth.

An agent's "true" extroversion and likeability are scored here, by the experiment, from the
trait sentences the village generated for it (``agent_runtime.config.names.TRAIT_POOL``);
the core and every agent's policies know the sentences only, never these scores.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["TRAIT_SCORES", "true_scores"]

#: trait sentence -> (extroversion delta, likeability delta)
TRAIT_SCORES: dict[str, tuple[float, float]] = {
    "You are outgoing and love starting conversations.": (1.0, 0.5),
    "You are quiet and prefer to work alone.": (-1.0, 0.0),
    "You are generous and share what you have.": (0.2, 1.0),
    "You are stingy and keep your belongings to yourself.": (-0.2, -1.0),
    "You are cheerful and encourage others.": (0.6, 1.0),
    "You are grumpy and complain often.": (0.0, -1.0),
    "You are honest and keep your promises.": (0.0, 0.8),
    "You are sly and sometimes bend the truth.": (0.2, -0.8),
    "You are patient and calm under pressure.": (-0.2, 0.6),
    "You are hot-tempered and quick to argue.": (0.4, -0.9),
    "You are curious and like to explore.": (0.3, 0.2),
    "You are cautious and avoid risks.": (-0.4, 0.0),
    "You are hard-working and finish what you start.": (0.0, 0.4),
    "You are lazy and avoid hard work when you can.": (0.0, -0.5),
    "You are humble and listen to others.": (-0.2, 0.7),
    "You are boastful and talk about yourself a lot.": (0.7, -0.7),
}


def true_scores(traits: Iterable[str]) -> tuple[float | None, float | None]:
    """(extroversion, true likeability 0..10) from an agent's scored traits; (None, None) for
    an agent with none of them (written by hand, not generated)."""
    picks = [TRAIT_SCORES[t] for t in traits if t in TRAIT_SCORES]
    if not picks:
        return None, None
    extro = sum(e for e, _ in picks)
    like = 5.0 + 5.0 * sum(v for _, v in picks) / len(picks)
    return round(extro, 3), round(min(10.0, max(0.0, like)), 3)
