"""Social perception's ground truth is the experiment's: every generated trait sentence has a
score there, and an agent's true likeability is derived from its traits as before."""

from __future__ import annotations

import random

from agent_runtime.config.names import TRAIT_POOL, generate_personality
from experiments.social_perception.truth import TRAIT_SCORES, true_scores


def test_every_generated_trait_is_scored_by_the_experiment() -> None:
    assert set(TRAIT_POOL) == set(TRAIT_SCORES)


def test_true_scores_from_traits() -> None:
    traits = (
        "You are outgoing and love starting conversations.",  # +1.0, +0.5
        "You are stingy and keep your belongings to yourself.",  # -0.2, -1.0
        "You are honest and keep your promises.",  # 0.0, +0.8
    )
    extro, like = true_scores(("You live in a village.", *traits))  # unscored traits ignored
    assert extro == 0.8 and like == round(5 + 5 * 0.3 / 3, 3)
    assert true_scores(("You live in a village.",)) == (None, None)
    rng = random.Random(4)
    for _ in range(50):
        extro, like = true_scores(generate_personality(rng))
        assert extro is not None and like is not None and 0 <= like <= 10
