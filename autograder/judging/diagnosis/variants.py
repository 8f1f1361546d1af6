"""Run a reference with one of its torch primitives changed — in this thread only.

Diagnosis (``autograder.judging.diagnosis.diagnose``) asks "would the reference, with the softmax over
another axis / with its scores scaled by c / with LayerNorm over more axes, return what the
student returned?". Rather than one hand-written variant per question, the reference itself is
re-run while ``torch.softmax``, ``Tensor.softmax``, ``F.softmax``, ``F.scaled_dot_product_attention``
and ``F.layer_norm`` consult a thread-local override. The wrappers are installed once, in the
grader's own (trusted) process, and behave exactly like the originals unless an override is
active in the calling thread, so concurrent grading threads are unaffected.
"""

from __future__ import annotations

import contextlib
import math
import threading
from dataclasses import dataclass

_state = threading.local()
_install_lock = threading.Lock()
_installed = False


@dataclass(frozen=True)
class Override:
    """What to change: softmax input scaled by ``scale``, softmax taken over ``softmax_dim``
    instead of the reference's axis, its output rounded, LayerNorm over the last ``norm_axes`` axes."""

    scale: float = 1.0
    softmax_dim: int | None = None
    norm_axes: int | None = None
    masked_fill: str | None = None  # "skip": not applied; "invert": applied with ~mask; "transpose"
    round_decimals: int | None = None  # the softmax's output (the weights) rounded to this many decimals


def _active() -> Override | None:
    return getattr(_state, "override", None)


def _note(kind: str) -> None:
    seen = getattr(_state, "seen", None)
    if seen is not None:
        seen.add(kind)


def _install() -> None:
    """Replace the primitives by their wrappers, once per process."""
    global _installed
    with _install_lock:
        if _installed:
            return
        import torch
        import torch.nn.functional as F

        softmax, f_softmax, tensor_softmax, sdpa = _softmax_wrappers(torch, F)
        tensor_masked_fill, masked_fill = _masked_fill_wrappers(torch)
        layer_norm = _layer_norm_wrapper(torch, F)
        torch.softmax, F.softmax, torch.Tensor.softmax = softmax, f_softmax, tensor_softmax
        F.scaled_dot_product_attention, F.layer_norm = sdpa, layer_norm
        torch.Tensor.masked_fill, torch.masked_fill = tensor_masked_fill, masked_fill
        _installed = True


def _masked_fill_wrappers(torch):
    """Tensor.masked_fill and torch.masked_fill: the mask skipped, inverted or transposed."""
    orig_masked_fill, orig_t_masked_fill = torch.Tensor.masked_fill, torch.masked_fill

    def changed_masked_fill(original, x, mask, value):
        _note("masked_fill")
        ov = _active()
        if ov is None or ov.masked_fill is None or not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
            return original(x, mask, value)
        if ov.masked_fill == "skip":
            return x.clone()
        if ov.masked_fill == "transpose" and mask.dim() >= 2:
            return original(x, mask.transpose(-2, -1), value)
        return original(x, ~mask, value)

    def tensor_masked_fill(self, mask, value):
        return changed_masked_fill(orig_masked_fill, self, mask, value)

    def masked_fill(input, mask, value):  # noqa: A002
        return changed_masked_fill(orig_t_masked_fill, input, mask, value)

    return tensor_masked_fill, masked_fill


def _softmax_wrappers(torch, F):
    """torch.softmax, F.softmax, Tensor.softmax (scores scaled, another axis) and F.scaled_dot_product_attention
    (written out when an override is active, so that the changed softmax applies)."""
    orig_softmax, orig_f_softmax, orig_tensor_softmax = torch.softmax, F.softmax, torch.Tensor.softmax
    orig_sdpa = F.scaled_dot_product_attention

    def changed_softmax(original, x, dim, *args, **kwargs):
        _note("softmax")
        ov = _active()
        if ov is None:
            return original(x, dim, *args, **kwargs)
        if ov.scale != 1.0:
            x = x * ov.scale
        if ov.softmax_dim is not None and x.dim() >= 2:
            dim = ov.softmax_dim
        weights = original(x, dim, *args, **kwargs)
        return weights if ov.round_decimals is None else torch.round(weights, decimals=ov.round_decimals)

    def softmax(input, dim=None, *args, **kwargs):  # noqa: A002 - torch's own parameter name
        return changed_softmax(orig_softmax, input, dim, *args, **kwargs)

    def f_softmax(input, dim=None, *args, **kwargs):  # noqa: A002
        return changed_softmax(orig_f_softmax, input, dim, *args, **kwargs)

    def tensor_softmax(self, dim=None, *args, **kwargs):
        return changed_softmax(orig_tensor_softmax, self, dim, *args, **kwargs)

    def sdpa(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, **kwargs):
        _note("softmax")
        if _active() is None:
            return orig_sdpa(
                q, k, v, attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal, scale=scale, **kwargs
            )
        # the explicit formula, so that the overridden softmax applies
        scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
        scores = (q @ k.transpose(-2, -1)) * scale
        if is_causal:
            scores = scores.masked_fill(~torch.ones(scores.shape[-2:], dtype=torch.bool).tril(), float("-inf"))
        if attn_mask is not None:
            scores = (
                scores.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype == torch.bool else scores + attn_mask
            )
        return torch.nan_to_num(softmax(scores, -1), nan=0.0) @ v  # no allowed key: a zero row

    return softmax, f_softmax, tensor_softmax, sdpa


def _layer_norm_wrapper(torch, F):
    """F.layer_norm over the last ``norm_axes`` axes together."""
    orig_layer_norm = F.layer_norm

    def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):  # noqa: A002
        _note("layer_norm")
        ov = _active()
        if ov is None or ov.norm_axes is None:
            return orig_layer_norm(input, normalized_shape, weight, bias, eps)
        axes = tuple(range(-min(ov.norm_axes, input.dim()), 0))
        mean = input.mean(axes, keepdim=True)
        var = input.var(axes, unbiased=False, keepdim=True)
        out = (input - mean) / torch.sqrt(var + eps)
        if weight is not None:
            out = out * weight
        return out + bias if bias is not None else out

    return layer_norm


@contextlib.contextmanager
def overridden(override: Override | None):
    """Within the block (this thread only), the patched primitives apply ``override``."""
    _install()
    previous = _active()
    _state.override = override
    try:
        yield
    finally:
        _state.override = previous


def primitives_used(run) -> set[str]:
    """Which of the overridable primitives ("softmax", "layer_norm", "masked_fill") ``run()`` calls."""
    _install()
    previous = getattr(_state, "seen", None)
    _state.seen = set()
    try:
        run()
        return set(_state.seen)
    finally:
        _state.seen = previous
