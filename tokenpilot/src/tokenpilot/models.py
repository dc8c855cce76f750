"""The model catalog: the shapes that decide FLOPs, weight bytes and KV bytes, as data.

Entries live in ``data/models.yaml``; any other model can be read from its Hugging Face
``config.json`` with :func:`load_hf_config` (or by passing the path to :func:`get_model`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from functools import cache
from importlib import resources
from pathlib import Path

import yaml

from tokenpilot.catalog import alias_index, norm
from tokenpilot.config_section import from_mapping


@dataclass(frozen=True)
class ModelSpec:
    """One decoder-only transformer. Parameter counts are whole-model totals."""

    name: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int  # dense MLP width (the dense layers' width for MoE models)
    vocab: int
    params: float  # total parameters
    active_params: float = 0.0  # parameters one token passes through; 0 means == params
    tied_embeddings: bool = False
    gated_mlp: bool = True  # SwiGLU-style three matrices; False for a two-matrix MLP (OPT)
    sliding_window: int | None = None
    max_context: int | None = None
    num_experts: int = 0  # routed experts per MoE layer; 0 for a dense model
    experts_per_token: int = 0
    shared_experts: int = 0
    moe_intermediate: int | None = None
    dense_layers: int = 0  # leading layers with a dense MLP in a MoE model
    kv_lora_rank: int | None = None  # MLA (DeepSeek): compressed KV width
    qk_rope_dim: int | None = None
    qk_nope_dim: int | None = None
    v_head_dim: int | None = None
    q_lora_rank: int | None = None
    source: str = ""
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.active_params:
            object.__setattr__(self, "active_params", float(self.params))

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    @property
    def embedding_params(self) -> int:
        return self.vocab * self.hidden

    @property
    def moe_layers(self) -> int:
        return self.layers - self.dense_layers if self.is_moe else 0

    @property
    def expert_params(self) -> int:
        """Parameters of one routed expert in one layer."""
        width = self.moe_intermediate or self.intermediate
        return (3 if self.gated_mlp else 2) * self.hidden * width

    @property
    def body_active_params(self) -> float:
        """Parameters in the matmuls every token passes through, without embedding and LM head."""
        return self.active_params - self.embedding_params

    def kv_elems_per_token(self, tp: int = 1) -> int:
        """KV-cache elements one token stores, summed over all ``tp`` ranks.

        MLA keeps one compressed latent (kv_lora_rank + rope dim) per layer, replicated on every
        rank. Grouped KV heads are split across ranks, and replicated when there are fewer KV
        heads than ranks (each rank needs at least one).
        """
        if self.is_mla:
            return self.layers * (self.kv_lora_rank + (self.qk_rope_dim or 0)) * tp
        heads_per_rank = -(-self.kv_heads // tp)
        return 2 * self.layers * self.head_dim * heads_per_rank * tp

    def attn_flops_per_pair(self, decode: bool) -> float:
        """FLOPs of attention for one (query token, key token) pair, all layers.

        MLA decodes in the absorbed form (scores and values against the 512+64 latent) and
        prefills in the expanded form (per-head 128+64 keys, 128 values), as DeepSeek's kernels do.
        """
        if self.is_mla:
            rope = self.qk_rope_dim or 0
            if decode:
                lat = self.kv_lora_rank or 0
                per = 2 * self.heads * (lat + rope) + 2 * self.heads * lat
            else:
                per = 2 * self.heads * ((self.qk_nope_dim or 0) + rope) + 2 * self.heads * (
                    self.v_head_dim or self.head_dim
                )
            return float(per * self.layers)
        return 4.0 * self.heads * self.head_dim * self.layers

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "aliases"}


class UnknownModelError(KeyError):
    """A model name that is neither in the catalog nor a config.json path."""

    def __str__(self) -> str:
        return str(self.args[0])


@cache
def _catalog() -> dict[str, ModelSpec]:
    text = resources.files("tokenpilot").joinpath("data/models.yaml").read_text()
    return {name: from_mapping(ModelSpec, {"name": name, **d}, f"models.yaml: models.{name}")
            for name, d in yaml.safe_load(text)["models"].items()}


@cache
def _index() -> dict[str, str]:
    return alias_index(_catalog())


def list_models() -> list[str]:
    """Canonical model names, in catalog order."""
    return list(_catalog())


def get_model(name: str) -> ModelSpec:
    """The catalog entry for ``name`` (or an alias), or the model in a ``config.json`` path."""
    key = _index().get(norm(name))
    if key is not None:
        return _catalog()[key]
    path = Path(name)
    if name.endswith(".json") or path.is_dir() or path.is_file():
        return load_hf_config(path)
    raise UnknownModelError(
        f"unknown model {name!r}; known models: {', '.join(list_models())}; "
        "or pass a Hugging Face config with --model path/to/config.json"
    )


def load_hf_config(path: str | Path) -> ModelSpec:
    """A ModelSpec from a Hugging Face ``config.json`` (or a folder holding one).

    Parameter counts are computed from the shapes (embedding, attention, MLP or experts, LM head),
    which is within a fraction of a percent for Llama-, Qwen-, Mistral-, OPT- and DeepSeek-style
    configs; norms and biases are ignored.
    """
    p = Path(path)
    if p.is_dir():
        p = p / "config.json"
    try:
        cfg = json.loads(p.read_text())
    except FileNotFoundError as e:
        raise UnknownModelError(f"model config {str(p)!r} not found") from e
    except json.JSONDecodeError as e:
        raise ValueError(f"{p}: not valid JSON ({e})") from e
    try:
        return _from_config(cfg, name=p.parent.name or p.stem, source=str(p))
    except KeyError as e:
        raise ValueError(f"{p}: config.json lacks field {e.args[0]!r}") from e


def _from_config(cfg: dict, name: str, source: str) -> ModelSpec:
    hidden = int(cfg["hidden_size"])
    layers = int(cfg["num_hidden_layers"])
    heads = int(cfg["num_attention_heads"])
    kv_heads = int(cfg.get("num_key_value_heads") or heads)
    head_dim = int(cfg.get("head_dim") or hidden // heads)
    gated = "ffn_dim" not in cfg  # OPT names its two-matrix MLP width ffn_dim
    inter = int(cfg.get("intermediate_size") or cfg.get("ffn_dim") or 4 * hidden)
    vocab = int(cfg["vocab_size"])
    tied = bool(cfg.get("tie_word_embeddings", not gated))
    window = cfg.get("sliding_window")
    if cfg.get("use_sliding_window") is False or not window:
        window = None
    n_exp = int(cfg.get("n_routed_experts") or cfg.get("num_local_experts") or 0)
    n_exp = n_exp or int(cfg.get("num_experts") or 0)
    top_k = int(cfg.get("num_experts_per_tok") or 0) if n_exp else 0
    moe_inter = cfg.get("moe_intermediate_size") or (inter if n_exp else None)
    shared = int(cfg.get("n_shared_experts") or 0)
    dense_layers = int(cfg.get("first_k_dense_replace") or 0) if n_exp else 0
    kv_lora = cfg.get("kv_lora_rank")
    rope = cfg.get("qk_rope_head_dim")
    nope = cfg.get("qk_nope_head_dim")
    v_dim = cfg.get("v_head_dim")
    q_lora = cfg.get("q_lora_rank")

    if kv_lora:
        q = hidden * heads * (nope + rope) if not q_lora else (
            hidden * q_lora + q_lora * heads * (nope + rope)
        )
        attn = q + hidden * (kv_lora + rope) + kv_lora * heads * (nope + v_dim)
        attn += heads * v_dim * hidden
    else:
        attn = hidden * heads * head_dim * 2 + 2 * hidden * kv_heads * head_dim
    mats = 3 if gated else 2
    dense_mlp = mats * hidden * inter
    expert = mats * hidden * int(moe_inter or 0)
    moe_layers = layers - dense_layers if n_exp else 0
    mlp_total = (layers - moe_layers) * dense_mlp + moe_layers * (n_exp + shared) * expert
    mlp_active = (layers - moe_layers) * dense_mlp + moe_layers * (top_k + shared) * expert
    router = moe_layers * hidden * n_exp
    emb = vocab * hidden * (1 if tied else 2)
    total = layers * attn + mlp_total + router + emb
    active = layers * attn + mlp_active + router + emb
    return ModelSpec(
        name=str(cfg.get("_name_or_path") or name).split("/")[-1].lower() or name,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate=inter,
        vocab=vocab,
        params=float(total),
        active_params=float(active),
        tied_embeddings=tied,
        gated_mlp=gated,
        sliding_window=int(window) if window else None,
        max_context=cfg.get("max_position_embeddings"),
        num_experts=n_exp,
        experts_per_token=top_k,
        shared_experts=shared,
        moe_intermediate=int(moe_inter) if moe_inter else None,
        dense_layers=dense_layers,
        kv_lora_rank=kv_lora,
        qk_rope_dim=rope,
        qk_nope_dim=nope,
        v_head_dim=v_dim,
        q_lora_rank=q_lora,
        source=source,
    )
