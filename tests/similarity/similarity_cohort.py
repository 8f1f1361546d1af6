"""A PS1 cohort for the similarity tests: four honest students who wrote their own code, and
planted copies of them, each disguised one way.

The honest students differ where PS1 leaves room (attention with a vectorised matmul, with
einsum, with loops over rows, with a hand-made stable softmax; shapes and parameter counts
built three different ways); the answers the question forces on everyone (``scores_002 = Q @
K.T``, the formula strings) come from the instructor's solution for all of them, as they would.
"""

from __future__ import annotations

import re

SDPA = {
    "vectorised": '''def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(q kᵀ / √d_k) v, with mask True = may attend and fully masked rows -> 0."""
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    weights = torch.nan_to_num(weights, nan=0.0)  # rows with no allowed key
    return weights @ v
''',
    "einsum": '''def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(q kᵀ / √d_k) v, with mask True = may attend and fully masked rows -> 0."""
    logits = torch.einsum("...id,...jd->...ij", q, k) * q.size(-1) ** -0.5
    if mask is None:
        allowed = torch.ones_like(logits, dtype=torch.bool)
    else:
        allowed = mask.expand_as(logits)
    peak = torch.where(allowed, logits, torch.full_like(logits, -1e30)).amax(dim=-1, keepdim=True)
    e = torch.where(allowed, torch.exp(logits - peak), torch.zeros_like(logits))
    total = e.sum(dim=-1, keepdim=True)
    p = e / torch.clamp(total, min=1e-30)
    return torch.einsum("...ij,...jd->...id", p, v)
''',
    "loops": '''def _row_softmax(row, keep):
    out = torch.zeros_like(row)
    if keep.any():
        shifted = row[keep] - row[keep].max()
        ex = shifted.exp()
        out[keep] = ex / ex.sum()
    return out


def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(q kᵀ / √d_k) v, with mask True = may attend and fully masked rows -> 0."""
    lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    Tq, Tk = q.shape[-2], k.shape[-2]
    qq = q.expand(*lead, Tq, q.shape[-1]).reshape(-1, Tq, q.shape[-1])
    kk = k.expand(*lead, Tk, k.shape[-1]).reshape(-1, Tk, k.shape[-1])
    vv = v.expand(*lead, Tk, v.shape[-1]).reshape(-1, Tk, v.shape[-1])
    if mask is None:
        mm = torch.ones(qq.shape[0], Tq, Tk, dtype=torch.bool)
    else:
        mm = mask.expand(*lead, Tq, Tk).reshape(-1, Tq, Tk)
    result = torch.zeros(qq.shape[0], Tq, vv.shape[-1], dtype=q.dtype)
    for b in range(qq.shape[0]):
        for i in range(Tq):
            s = torch.stack([torch.dot(qq[b, i], kk[b, j]) for j in range(Tk)]) / math.sqrt(qq.shape[-1])
            result[b, i] = _row_softmax(s, mm[b, i]) @ vv[b]
    return result.reshape(*lead, Tq, v.shape[-1])
''',
    "logsumexp": '''def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(q kᵀ / √d_k) v, with mask True = may attend and fully masked rows -> 0."""
    dk = k.shape[-1]
    att = torch.matmul(q, torch.swapaxes(k, -1, -2)) / dk ** 0.5
    if mask is not None:
        att = torch.where(mask, att, torch.tensor(float("-inf"), dtype=att.dtype))
    lse = torch.logsumexp(att, dim=-1, keepdim=True)
    probs = torch.exp(att - lse)
    probs = torch.where(torch.isnan(probs), torch.zeros_like(probs), probs)
    return torch.matmul(probs, v)
''',
}

SHAPES = {
    "literal": """B, S, T = PARAMS["batch"], PARAMS["src_len"], PARAMS["tgt_len"]
d, h, V = PARAMS["d_model"], PARAMS["n_heads"], PARAMS["vocab"]
shapes = {
    "src_embeddings": (B, S, d), "encoder_q_per_head": (B, h, S, d // h),
    "encoder_self_scores": (B, h, S, S), "encoder_self_attention_out": (B, S, d),
    "ffn_hidden": (B, S, PARAMS["d_ff_factor"] * d), "encoder_layer_out": (B, S, d),
    "decoder_ffn_hidden": (B, T, PARAMS["d_ff_factor"] * d),
    "tgt_embeddings": (B, T, d), "decoder_self_scores": (B, h, T, T),
    "cross_q_per_head": (B, h, T, d // h), "cross_kv_per_head": (B, h, S, d // h),
    "cross_scores": (B, h, T, S), "cross_attention_out": (B, T, d),
    "decoder_layer_out": (B, T, d), "logits": (B, T, V),
}
""",
    "helpers": """p = PARAMS
head = p["d_model"] // p["n_heads"]

def seq(n, width):
    return (p["batch"], n, width)

def per_head(n, m):
    return (p["batch"], p["n_heads"], n, m)

S, T = p["src_len"], p["tgt_len"]
shapes = dict(src_embeddings=seq(S, p["d_model"]), tgt_embeddings=seq(T, p["d_model"]))
shapes["encoder_q_per_head"] = per_head(S, head)
shapes["encoder_self_scores"] = per_head(S, S)
for name in ("encoder_self_attention_out", "encoder_layer_out"):
    shapes[name] = seq(S, p["d_model"])
shapes["ffn_hidden"] = seq(S, p["d_ff_factor"] * p["d_model"])
shapes["decoder_ffn_hidden"] = seq(T, p["d_ff_factor"] * p["d_model"])
shapes["decoder_self_scores"] = per_head(T, T)
shapes["cross_q_per_head"], shapes["cross_kv_per_head"] = per_head(T, head), per_head(S, head)
shapes["cross_scores"] = per_head(T, S)
shapes["cross_attention_out"] = shapes["decoder_layer_out"] = seq(T, p["d_model"])
shapes["logits"] = seq(T, p["vocab"])
""",
    "table": """rows = [
    ("src_embeddings", "B S D"), ("encoder_q_per_head", "B H S K"), ("encoder_self_scores", "B H S S"),
    ("encoder_self_attention_out", "B S D"), ("ffn_hidden", "B S F"), ("encoder_layer_out", "B S D"),
    ("tgt_embeddings", "B T D"), ("decoder_self_scores", "B H T T"), ("cross_q_per_head", "B H T K"),
    ("cross_kv_per_head", "B H S K"), ("cross_scores", "B H T S"), ("cross_attention_out", "B T D"),
    ("decoder_layer_out", "B T D"), ("logits", "B T V"), ("decoder_ffn_hidden", "B T F"),
]
sizes = {"B": PARAMS["batch"], "S": PARAMS["src_len"], "T": PARAMS["tgt_len"], "D": PARAMS["d_model"],
         "H": PARAMS["n_heads"], "K": PARAMS["d_model"] // PARAMS["n_heads"],
         "F": PARAMS["d_ff_factor"] * PARAMS["d_model"], "V": PARAMS["vocab"]}
shapes = {}
for key, letters in rows:
    shapes[key] = tuple(sizes[c] for c in letters.split())
""",
    "comprehension": '''cfg = PARAMS
dims = {"B": cfg["batch"], "S": cfg["src_len"], "T": cfg["tgt_len"], "D": cfg["d_model"],
        "H": cfg["n_heads"], "F": cfg["d_ff_factor"] * cfg["d_model"], "V": cfg["vocab"]}
dims["K"] = dims["D"] // dims["H"]
spec = """src_embeddings BSD | encoder_q_per_head BHSK | encoder_self_scores BHSS
encoder_self_attention_out BSD | ffn_hidden BSF | encoder_layer_out BSD | tgt_embeddings BTD
decoder_self_scores BHTT | cross_q_per_head BHTK | cross_kv_per_head BHSK | cross_scores BHTS
cross_attention_out BTD | decoder_layer_out BTD | logits BTV | decoder_ffn_hidden BTF"""
shapes = {name: tuple(dims[letter] for letter in axes)
          for name, axes in (item.split() for item in spec.replace("\\n", "|").split("|"))}
''',
}

COUNTS = {
    "inline": """_d, _ff = PARAMS["d_model"], PARAMS["d_ff_factor"] * PARAMS["d_model"]
_mha, _ffn, _ln = 4 * _d * _d + 4 * _d, 2 * _d * _ff + _ff + _d, 2 * _d
param_counts = {"mha": _mha, "ffn": _ffn, "encoder_layer": _mha + _ffn + 2 * _ln,
                "decoder_layer": 2 * _mha + _ffn + 3 * _ln}
param_counts["total"] = (PARAMS["vocab"] * _d + PARAMS["n_enc_layers"] * param_counts["encoder_layer"]
                         + PARAMS["n_dec_layers"] * param_counts["decoder_layer"])
""",
    "functions": """def linear(n_in, n_out):
    return n_in * n_out + n_out

def layer_norm(width):
    return 2 * width

def count_model(cfg):
    D = cfg["d_model"]
    attention = 4 * linear(D, D)
    feed_forward = linear(D, cfg["d_ff_factor"] * D) + linear(cfg["d_ff_factor"] * D, D)
    enc = attention + feed_forward + 2 * layer_norm(D)
    dec = 2 * attention + feed_forward + 3 * layer_norm(D)
    total = cfg["vocab"] * D + cfg["n_enc_layers"] * enc + cfg["n_dec_layers"] * dec
    return dict(mha=attention, ffn=feed_forward, encoder_layer=enc, decoder_layer=dec, total=total)

param_counts = count_model(PARAMS)
""",
    "sum": """width = PARAMS["d_model"]
hidden = width * PARAMS["d_ff_factor"]
pieces = {"wq": width * width + width, "wk": width * width + width, "wv": width * width + width,
          "wo": width * width + width}
attn_total = sum(pieces.values())
ffn_total = (width + 1) * hidden + (hidden + 1) * width
norms = [2 * width] * 3
param_counts = {
    "mha": attn_total,
    "ffn": ffn_total,
    "encoder_layer": attn_total + ffn_total + sum(norms[:2]),
    "decoder_layer": attn_total * 2 + ffn_total + sum(norms),
}
param_counts["total"] = width * PARAMS["vocab"]
param_counts["total"] += param_counts["encoder_layer"] * PARAMS["n_enc_layers"]
param_counts["total"] += param_counts["decoder_layer"] * PARAMS["n_dec_layers"]
""",
    "class": """class Counter:
    def __init__(self, d_model, d_ff):
        self.d, self.f = d_model, d_ff

    def attention(self):
        return 4 * self.d ** 2 + 4 * self.d

    def ffn(self):
        return self.d * self.f + self.f + self.f * self.d + self.d

    def layer(self, decoder):
        norms = (3 if decoder else 2) * 2 * self.d
        return (2 if decoder else 1) * self.attention() + self.ffn() + norms


c = Counter(PARAMS["d_model"], PARAMS["d_ff_factor"] * PARAMS["d_model"])
param_counts = {"mha": c.attention(), "ffn": c.ffn(), "encoder_layer": c.layer(False),
                "decoder_layer": c.layer(True)}
param_counts["total"] = sum([PARAMS["vocab"] * c.d, PARAMS["n_enc_layers"] * c.layer(False),
                             PARAMS["n_dec_layers"] * c.layer(True)])
""",
}

REAL_MODELS = {
    "layer_fn": """def _layer(d, d_ff, cross=False):
    attention = 4 * d * d + 4 * d
    return (2 if cross else 1) * attention + 2 * d * d_ff + d_ff + d + (3 if cross else 2) * 2 * d
real_models = {
    "bert_base": (30522 + 512 + 2) * 768 + 2 * 768 + 12 * _layer(768, 3072) + 768 * 768 + 768,
    "gpt2_small": (50257 + 1024) * 768 + 12 * _layer(768, 3072) + 2 * 768,
    "transformer_base": 37000 * 512 + 6 * _layer(512, 2048) + 6 * _layer(512, 2048, cross=True),
}
""",
    "named": """def encoder_block(d):
    return 4 * (d * d + d) + (d * 4 * d + 4 * d) + (4 * d * d + d) + 4 * d

def decoder_block(d):
    return 8 * (d * d + d) + (d * 4 * d + 4 * d) + (4 * d * d + d) + 6 * d

bert = 30522 * 768 + 512 * 768 + 2 * 768 + 2 * 768
bert += 12 * encoder_block(768)
bert += 768 * 768 + 768
gpt2 = 50257 * 768 + 1024 * 768 + 12 * encoder_block(768) + 2 * 768
base = 37000 * 512 + 6 * encoder_block(512) + 6 * decoder_block(512)
real_models = {"bert_base": bert, "gpt2_small": gpt2, "transformer_base": base}
""",
    "general": """def model_size(vocab, positions, d, n_enc, n_dec=0, extra=0):
    ff = 4 * d
    att = 4 * d * (d + 1)
    mlp = d * ff + ff + ff * d + d
    return vocab * d + positions * d + n_enc * (att + mlp + 4 * d) + n_dec * (2 * att + mlp + 6 * d) + extra

real_models = {
    "bert_base": model_size(30522, 512 + 2, 768, 12, extra=2 * 768 + 768 * 769),
    "gpt2_small": model_size(50257, 1024, 768, 12, extra=2 * 768),
    "transformer_base": model_size(37000, 0, 512, 6, 6),
}
""",
    "loop": """configs = [("bert_base", 768, 12, 0, 30522 + 512 + 2), ("gpt2_small", 768, 12, 0, 50257 + 1024),
           ("transformer_base", 512, 6, 6, 37000)]
real_models = {}
for label, width, enc_layers, dec_layers, rows in configs:
    n = rows * width
    for _ in range(enc_layers):
        n += 4 * (width * width + width) + 8 * width * width + 5 * width + 4 * width
    for _ in range(dec_layers):
        n += 8 * (width * width + width) + 8 * width * width + 5 * width + 6 * width
    if label == "bert_base":
        n += 2 * width + width * width + width
    if label == "gpt2_small":
        n += 2 * width
    real_models[label] = n
""",
}

# who wrote what: four honest students, no two alike in any part with room for choice
HONEST = {
    "hana": {
        "sdpa_impl": SDPA["vectorised"],
        "shapes_answer": SHAPES["literal"],
        "counts_answer": COUNTS["inline"],
        "real_models_answer": REAL_MODELS["layer_fn"],
    },
    "ivan": {
        "sdpa_impl": SDPA["einsum"],
        "shapes_answer": SHAPES["helpers"],
        "counts_answer": COUNTS["functions"],
        "real_models_answer": REAL_MODELS["named"],
    },
    "jo": {
        "sdpa_impl": SDPA["loops"],
        "shapes_answer": SHAPES["table"],
        "counts_answer": COUNTS["sum"],
        "real_models_answer": REAL_MODELS["general"],
    },
    "kai": {
        "sdpa_impl": SDPA["logsumexp"],
        "shapes_answer": SHAPES["comprehension"],
        "counts_answer": COUNTS["class"],
        "real_models_answer": REAL_MODELS["loop"],
    },
}


def rename(code: str, names: dict[str, str]) -> str:
    for old, new in names.items():
        code = re.sub(rf"\b{re.escape(old)}\b", new, code)
    return code


def reverse_functions(code: str) -> str:
    """The cell's top-level blocks (functions, then the rest) in reverse order."""
    import ast

    lines = code.splitlines(keepends=True)
    blocks = [("".join(lines[n.lineno - 1 : n.end_lineno])) for n in ast.parse(code).body]
    defs = [b for b in blocks if b.startswith(("def ", "class "))]
    rest = [b for b in blocks if not b.startswith(("def ", "class "))]
    return "\n\n".join(defs[::-1] + rest) + "\n"


def edit_comments(code: str) -> str:
    """New comments and docstrings, comments removed, blank lines and spacing changed."""
    out = []
    for line in code.splitlines():
        line = re.sub(r"\s+#.*$", "", line)  # drop trailing comments
        line = line.replace(
            '"""softmax(q kᵀ / √d_k) v, with mask True = may attend and fully masked rows -> 0."""',
            '"""My attention: row softmax of the scaled scores, then the values."""',
        )
        line = line.replace(" = ", "=").replace(", ", ",")
        out.append(line)
        if line.rstrip().endswith(":") and not line.lstrip().startswith(("'", '"')):
            indent = len(line) - len(line.lstrip()) + 4
            out.append(" " * indent + "# step by step, as in the lecture")
    return "\n\n".join(out) + "\n"


SWAPPED_SDPA = '''def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(q kᵀ / √d_k) v, with mask True = may attend and fully masked rows -> 0."""
    scale = 1.0 / math.sqrt(q.shape[-1])
    raw = torch.matmul(q * scale, k.transpose(-1, -2))
    keep = torch.ones_like(raw, dtype=torch.bool) if mask is None else mask.broadcast_to(raw.shape)
    raw = raw.masked_fill(keep.logical_not(), -torch.inf)
    w = raw.softmax(-1).masked_fill(keep.logical_not().all(-1, keepdim=True), 0.0)
    return torch.matmul(w, v)
'''

RENAMES = {
    "scores": "att",
    "weights": "probs",
    "d_k": "dim",
    "_d": "width",
    "_ff": "inner",
    "_mha": "a",
    "_ffn": "f",
    "_ln": "norm",
    "B": "bb",
    "S": "ss",
    "T": "tt",
    "d": "dm",
    "h": "heads",
    "_layer": "block",
    "attention": "attn",
    "cross": "with_cross",
}
RENAMES_AGAIN = {"att": "logits", "probs": "alpha", "width": "dmod", "bb": "nb", "block": "layer_params"}


def planted() -> dict[str, dict[str, str]]:
    """Copies of the honest students, each disguised its own way."""
    hana, ivan, jo, kai = (HONEST[s] for s in ("hana", "ivan", "jo", "kai"))
    copy_rename = {g: rename(c, RENAMES) for g, c in hana.items()}
    return {
        "copy_rename": copy_rename,  # of hana: every identifier renamed
        "copy_reorder": {  # of ivan: functions reversed, two answer cells' code swapped between cells
            "sdpa_impl": ivan["sdpa_impl"],
            "shapes_answer": reverse_functions(ivan["shapes_answer"]),
            "counts_answer": reverse_functions(ivan["real_models_answer"]),
            "real_models_answer": reverse_functions(ivan["counts_answer"]),
        },
        "copy_comments": {g: edit_comments(c) for g, c in jo.items()},  # of jo: comments and layout
        "copy_swap": {**kai, "sdpa_impl": SWAPPED_SDPA},  # of kai: one function replaced by another
        "copy_chain": {g: edit_comments(rename(c, RENAMES_AGAIN)) for g, c in copy_rename.items()},
    }


PLANTED_PAIRS = {
    ("copy_rename", "hana"),
    ("copy_reorder", "ivan"),
    ("copy_comments", "jo"),
    ("copy_swap", "kai"),
    ("copy_chain", "hana"),
    ("copy_chain", "copy_rename"),
}
