"""Generated agent names and personalities for ``agent_templates`` (seeded, no I/O)."""

from __future__ import annotations

import random

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

#: trait sentences in pairs of opposites (a personality takes at most one of each pair);
#: what they are worth to an experiment (e.g. social perception's "true likeability") is
#: that experiment's own business, never the core's
TRAIT_POOL: tuple[str, ...] = (
    "You are outgoing and love starting conversations.",
    "You are quiet and prefer to work alone.",
    "You are generous and share what you have.",
    "You are stingy and keep your belongings to yourself.",
    "You are cheerful and encourage others.",
    "You are grumpy and complain often.",
    "You are honest and keep your promises.",
    "You are sly and sometimes bend the truth.",
    "You are patient and calm under pressure.",
    "You are hot-tempered and quick to argue.",
    "You are curious and like to explore.",
    "You are cautious and avoid risks.",
    "You are hard-working and finish what you start.",
    "You are lazy and avoid hard work when you can.",
    "You are humble and listen to others.",
    "You are boastful and talk about yourself a lot.",
)


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


def generate_personality(rng: random.Random, n_traits: int = 3) -> tuple[str, ...]:
    """``n_traits`` trait sentences, no two of the same pair of opposites."""
    pairs = [(TRAIT_POOL[i], TRAIT_POOL[i + 1]) for i in range(0, len(TRAIT_POOL), 2)]
    chosen = rng.sample(pairs, k=min(n_traits, len(pairs)))
    return tuple(pair[rng.randrange(2)] for pair in chosen)
