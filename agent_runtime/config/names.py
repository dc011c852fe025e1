"""Generated agent names and personalities for ``agent_templates`` (seeded, no I/O)."""

from __future__ import annotations

import random
from dataclasses import dataclass

_FIRST = [
    "Ada",
    "Ansel",
    "Bea",
    "Bram",
    "Cora",
    "Cyril",
    "Dara",
    "Dov",
    "Edda",
    "Emil",
    "Fenna",
    "Felix",
    "Greta",
    "Gil",
    "Hana",
    "Hugo",
    "Ines",
    "Ivo",
    "Juna",
    "Jory",
    "Kaia",
    "Kasimir",
    "Lena",
    "Lior",
    "Mara",
    "Milo",
    "Nell",
    "Niko",
    "Odile",
    "Otto",
    "Pia",
    "Pavel",
    "Quinn",
    "Rhea",
    "Rune",
    "Saga",
    "Silas",
    "Tova",
    "Tamas",
    "Una",
    "Ulric",
    "Vera",
    "Viggo",
    "Wren",
    "Wim",
    "Xena",
    "Yara",
    "Yves",
    "Zora",
    "Zeno",
    "Alba",
    "Arlo",
    "Brisa",
    "Cato",
    "Delia",
    "Ezra",
    "Flora",
    "Gideon",
    "Hedda",
    "Ike",
    "Isla",
    "Jonas",
    "Kira",
    "Lazlo",
    "Maren",
    "Nils",
    "Orla",
    "Piet",
    "Ronja",
    "Sven",
    "Thea",
    "Tobin",
    "Uma",
    "Vito",
    "Willa",
    "Yorick",
    "Zelda",
    "Agnes",
    "Boris",
    "Clio",
    "Dmitri",
    "Elin",
    "Fritz",
    "Gaia",
    "Henrik",
    "Iona",
    "Jasper",
    "Klara",
    "Leif",
    "Mira",
    "Nestor",
    "Oona",
    "Perrin",
    "Rosa",
    "Soren",
    "Tilde",
    "Umberto",
    "Vesna",
]

# (sentence, extroversion delta, likeability delta)
_TRAIT_POOL: tuple[tuple[str, float, float], ...] = (
    ("You are outgoing and love starting conversations.", 1.0, 0.5),
    ("You are quiet and prefer to work alone.", -1.0, 0.0),
    ("You are generous and share what you have.", 0.2, 1.0),
    ("You are stingy and keep your belongings to yourself.", -0.2, -1.0),
    ("You are cheerful and encourage others.", 0.6, 1.0),
    ("You are grumpy and complain often.", 0.0, -1.0),
    ("You are honest and keep your promises.", 0.0, 0.8),
    ("You are sly and sometimes bend the truth.", 0.2, -0.8),
    ("You are patient and calm under pressure.", -0.2, 0.6),
    ("You are hot-tempered and quick to argue.", 0.4, -0.9),
    ("You are curious and like to explore.", 0.3, 0.2),
    ("You are cautious and avoid risks.", -0.4, 0.0),
    ("You are hard-working and finish what you start.", 0.0, 0.4),
    ("You are lazy and avoid hard work when you can.", 0.0, -0.5),
    ("You are humble and listen to others.", -0.2, 0.7),
    ("You are boastful and talk about yourself a lot.", 0.7, -0.7),
)


@dataclass(frozen=True, slots=True)
class Personality:
    traits: tuple[str, ...]
    extroversion: float  # roughly -3..3
    likeability: float  # 0..10, "true likeability" derived from traits


def generate_names(
    count: int, rng: random.Random, taken: set[str], prefix: str | None
) -> list[str]:
    """``count`` distinct Minecraft-valid names not in ``taken`` (case-insensitive)."""
    lowered = {t.lower() for t in taken}
    out: list[str] = []
    pool = list(_FIRST)
    rng.shuffle(pool)
    i = 0
    while len(out) < count:
        base = pool[i % len(pool)]
        round_ = i // len(pool)
        name = f"{prefix or ''}{base}{round_ + 1 if round_ else ''}"[:16]
        i += 1
        if len(name) < 3 or name.lower() in lowered:
            continue
        lowered.add(name.lower())
        out.append(name)
    return out


def generate_personality(rng: random.Random, n_traits: int = 3) -> Personality:
    """Pick ``n_traits`` non-contradicting trait sentences and score them."""
    pairs = [(_TRAIT_POOL[i], _TRAIT_POOL[i + 1]) for i in range(0, len(_TRAIT_POOL), 2)]
    chosen = rng.sample(pairs, k=min(n_traits, len(pairs)))
    picks = [pair[rng.randrange(2)] for pair in chosen]
    extro = sum(p[1] for p in picks)
    like = 5.0 + 5.0 * sum(p[2] for p in picks) / max(1, len(picks))
    return Personality(
        traits=tuple(p[0] for p in picks),
        extroversion=round(extro, 3),
        likeability=round(min(10.0, max(0.0, like)), 3),
    )
