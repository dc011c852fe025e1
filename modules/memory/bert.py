"""Our numpy forward pass of a BERT sentence encoder (all-MiniLM-L6-v2's shape).

6 layers, hidden 384, 12 heads, erf-GELU, post-LayerNorm; the caller pools and normalises.
Weights come as a dict of numpy arrays (from ``safetensors.numpy``); nothing is read here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["Bert", "l2_normalise"]

FloatArray = npt.NDArray[np.float32]

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


class Bert:
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


def l2_normalise(x: FloatArray) -> FloatArray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    out: FloatArray = (x / np.clip(norms, 1e-12, None)).astype(np.float32, copy=False)
    return out
