"""Fleets: which instances exist (GPU, model, TP, engine limits), read from YAML or built in.

A fleet file::

    name: mixed-8b                     # optional
    instances:
      - gpu: h100-sxm                  # a name from the hardware catalog
        count: 2                       # identical instances of this kind (default 1)
        model: llama-3.1-8b            # a catalog model or a config.json path
        tp: 1                          # tensor-parallel degree (GPUs per instance)
        engine: vllm-v1                # the engine profile (data/engines.yaml): vllm-v1 |
                                       #   vllm-v0 | sglang | llama.cpp; it gives how the
                                       #   engine schedules and the defaults of the keys below
        max_num_seqs: 256              # engine limits, vLLM's names (llama.cpp: -np slots)
        max_num_batched_tokens: 8192   #   (llama.cpp: -b)
        max_model_len: 0               # 0: the model's own context length (llama.cpp: the
                                       #   per-slot context)
        block_size: 16                 # KV block (page) size in tokens
        chunked_prefill: true          # false: prompts run whole (vllm-v0's default)
        gpu_memory_utilization: 0.9    # share of GPU memory for weights, activations and KV
        swap_space_gib: 4              # host memory per GPU for swap preemption (unset: the
                                       #   engine's; vllm-v1: unlimited); a swap beyond it
                                       #   recomputes instead
        kv_dtype: bf16                 # bf16 | fp16 | fp8 | int8
        weight_dtype: bf16
        preemption: recompute          # or swap
        labels: [fast]                 # routers see them (e.g. long-context)
        role: both                     # prefill | decode | both (disaggregation, cluster.pd)
        queue: fcfs                    # queue discipline: fcfs | priority | vtc
        calibration: PROFILE.yaml      # a fitted profile (tokenpilot calibrate --fit), relative
                                       #   to this file; default: the GPU family's calibration
        isolation:                     # size-class isolation inside the engine (optional)
          long_threshold: 4096         #   prompt tokens that make a request long
          short_kv_reserve: 0.2        #   share of KV blocks long requests may not use
          short_seq_reserve: 0.25      #   share of batch slots long requests may not use
          max_request_kv_share: 0.5    #   the most of the KV one request may hold

Capacity: ``instance_capacity`` is the request rate one instance sustains when saturated by
requests of the workload's mean prompt ``P`` and mean output ``O``. Its decode batch ``B`` is
``max_num_seqs`` or as many requests as the KV pool holds at their mean footprint ``P + O/2``
(KV grows as a request decodes), whichever is smaller. Serving ``B`` requests takes their
prefills at the full-chunk prefill speed plus ``O`` decode steps of a batch of ``B`` at mean
context ``P + O/2``; so the rate is ``B / (B*P/prefill_tps + O*decode_time(B, B*(P + O/2)))``.
The fleet's capacity is the sum over instances. It ignores queueing and the interference of
prefill chunks with decode, so real saturation comes a little earlier: a load of 0.8 is busy
but (for smooth arrivals) stable.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from tokenpilot.config_section import (
    NonNegativeFloat,
    NonNegativeInt,
    PositiveInt,
    from_mapping,
    read_text,
)
from tokenpilot.costmodel import (
    DTYPE_BYTES,
    Calibration,
    CostModel,
    DoesNotFitError,
    calibration_for,
)
from tokenpilot.engine import Engine, EngineConfig
from tokenpilot.engines import (
    DEFAULT_ENGINE,
    EngineProfile,
    Fraction,
    get_engine,
    with_engine_overheads,
)
from tokenpilot.hardware import GiB, UnknownGPUError, get_gpu
from tokenpilot.models import UnknownModelError, get_model
from tokenpilot.policy.isolation import IsolationPolicy
from tokenpilot.workload.request import Request


class FleetError(ValueError):
    """A fleet file or name is wrong; the message says where and what is valid."""


Role = Literal["both", "prefill", "decode"]  # prefill/decode disaggregation: see cluster.pd


@dataclass(frozen=True)
class InstanceSpec:
    """One kind of instance; ``count`` identical copies of it run in the fleet.

    The engine settings left None take the engine profile's defaults (``tokenpilot.engines``)
    when the spec is made: after that every one of them holds a value.
    """

    gpu: str
    model: str
    tp: PositiveInt = 1
    count: PositiveInt = 1
    engine: str = DEFAULT_ENGINE  # an engine profile (data/engines.yaml)
    max_num_seqs: PositiveInt | None = None
    max_num_batched_tokens: PositiveInt | None = None
    max_model_len: NonNegativeInt | None = None
    block_size: PositiveInt | None = None
    chunked_prefill: bool | None = None
    enable_prefix_caching: bool | None = None
    gpu_memory_utilization: Fraction | None = None
    swap_space_gib: NonNegativeFloat | None = None  # None: the profile's (vllm-v1: unlimited)
    kv_dtype: str = "bf16"  # checked by the cost model (DTYPE_BYTES)
    weight_dtype: str = "bf16"
    preemption: str | None = None  # recompute or swap; checked by the engine's config
    labels: tuple[str, ...] = ()
    name: str = ""  # instance name prefix (default: the GPU name)
    role: Role = "both"  # only ``cluster.pd`` tells prefill and decode apart
    queue: str = "fcfs"  # queue discipline by name (policy.disciplines.make_discipline)
    isolation: IsolationPolicy | None = None  # size classes inside the engine; None: off
    calibration: str = ""  # a profile file (tokenpilot.calibrate.profile); "": the GPU family's

    def __post_init__(self) -> None:
        prof = self.profile
        put = object.__setattr__  # frozen: the defaults are filled in once, here
        for name in ("max_num_seqs", "max_model_len", "block_size", "chunked_prefill",
                     "enable_prefix_caching", "gpu_memory_utilization", "swap_space_gib",
                     "preemption"):
            if getattr(self, name) is None:
                put(self, name, getattr(prof, name))
        if self.max_num_batched_tokens is None:
            ctx = self.max_model_len
            if not ctx and not prof.max_num_batched_tokens:  # vLLM V0: from the context
                try:
                    ctx = get_model(self.model).max_context
                except UnknownModelError as exc:
                    raise ValueError(str(exc).strip("'\"")) from None
            put(self, "max_num_batched_tokens",
                max(prof.batched_tokens(ctx or 0, bool(self.chunked_prefill)),
                    self.max_num_seqs or 1))
        if prof.kv_pool == "slots" and self.preemption == "swap":
            raise ValueError(f"engine {self.engine} has a fixed slot per request and never "
                             "preempts: preemption: swap does not apply")

    @property
    def profile(self) -> EngineProfile:
        return get_engine(self.engine)

    def cost_model(self, calibration: Calibration | None = None) -> CostModel:
        """The instance's cost model, under ``calibration`` if given, else its profile's, else
        the GPU family's plus the engine's CPU overheads (a fitted calibration holds them)."""
        if calibration is None and self.calibration:
            from tokenpilot.calibrate.profile import load_profile

            calibration = load_profile(self.calibration).calibration
        gpu = get_gpu(self.gpu)
        prof = self.profile
        if calibration is None:
            calibration = with_engine_overheads(prof, calibration_for(gpu.family))
        return CostModel(get_model(self.model), gpu, tp=self.tp,
                         weight_dtype=self.weight_dtype, kv_dtype=self.kv_dtype,
                         mem_util=float(self.gpu_memory_utilization or 0.9),
                         calibration=calibration)

    def slot_pool_blocks(self) -> int:
        """The fixed KV pool of a ``kv_pool: slots`` engine (slots x per-slot context), or 0."""
        if self.profile.kv_pool != "slots":
            return 0
        bs = int(self.block_size or 1)
        ctx = self.max_model_len or get_model(self.model).max_context
        return int(self.max_num_seqs or 1) * -(-int(ctx) // bs)

    def swap_tokens(self) -> int | None:
        """Host memory for swapped KV, in tokens of this instance (None: unlimited).

        ``swap_space_gib`` is per GPU, as vLLM's ``--swap-space``; a token's KV spans all
        ``tp`` ranks, as in ``CostModel.kv_bytes_per_token``."""
        if self.swap_space_gib is None:
            return None
        per_token = get_model(self.model).kv_elems_per_token(self.tp) * DTYPE_BYTES.get(
            self.kv_dtype, 2.0)
        return int(self.swap_space_gib * GiB * self.tp // per_token)

    def check_fits(self, cm: CostModel) -> None:
        """A slot pool must fit in the memory the weights leave (llama.cpp allocates it all)."""
        blocks = self.slot_pool_blocks()
        if blocks and blocks * int(self.block_size or 1) > cm.kv_capacity_tokens:
            raise DoesNotFitError(
                f"engine {self.engine}: {self.max_num_seqs} slots x {self.max_model_len} tokens "
                f"of KV need {blocks * int(self.block_size or 1)} tokens, {self.gpu} holds "
                f"{cm.kv_capacity_tokens} beside the weights")

    def engine_config(self, **overrides: Any) -> EngineConfig:
        prof = self.profile
        chunked = bool(self.chunked_prefill)
        kw: dict[str, Any] = {
            "queue": self.queue, "isolation": self.isolation,
            "block_size": self.block_size, "enable_prefix_caching": self.enable_prefix_caching,
            "prefill_first": prof.stalls_decodes(chunked), "chunked_prefill": chunked,
            "swap_tokens": self.swap_tokens(), "kv_blocks": self.slot_pool_blocks(),
        }
        kw.update(overrides)
        return EngineConfig(max_num_seqs=self.max_num_seqs,
                            max_num_batched_tokens=self.max_num_batched_tokens,
                            max_model_len=self.max_model_len, preemption=self.preemption,
                            **kw)


@dataclass(frozen=True)
class FleetSpec:
    name: str = "fleet"
    instances: tuple[InstanceSpec, ...] = field(default=())

    @property
    def size(self) -> int:
        return sum(s.count for s in self.instances)

    def expand(self) -> list[tuple[str, InstanceSpec]]:
        """One (instance name, spec) per instance, in file order: ``h100-sxm-0``, ..."""
        out, seen = [], {}
        for spec in self.instances:
            prefix = spec.name or spec.gpu
            for _ in range(spec.count):
                k = seen.get(prefix, 0)
                seen[prefix] = k + 1
                out.append((f"{prefix}-{k}", spec))
        return out

    def describe(self) -> str:
        return " + ".join(f"{s.count}x {s.gpu}" + (f" (TP{s.tp})" if s.tp > 1 else "")
                          + (f" {s.role}" if s.role != "both" else "")
                          for s in self.instances) + f" serving {self.models()}"

    def models(self) -> str:
        return ", ".join(dict.fromkeys(s.model for s in self.instances))

    def to_dict(self) -> dict:
        return {"name": self.name, "instances": [
            {k: (list(v) if isinstance(v, tuple) else
                 dataclasses.asdict(v) if dataclasses.is_dataclass(v) else v)
             for k, v in s.__dict__.items()}
            for s in self.instances]}


def fleet_from_dict(d: Any, where: str = "fleet") -> FleetSpec:
    """Read a parsed fleet document; every problem raises ``FleetError`` naming the key.

    Beyond the shape (``config_section.from_mapping``), each instance must name a GPU and a
    model the catalogs know, with engine limits its engine accepts, and fit in its GPUs.
    """
    fleet = from_mapping(FleetSpec, d, where, FleetError)
    if not fleet.instances:
        raise FleetError(f"{where}: 'instances' must list at least one instance")
    for k, spec in enumerate(fleet.instances):
        try:
            get_gpu(spec.gpu)
            get_model(spec.model)
            spec.engine_config()
            spec.check_fits(spec.cost_model())
        except (UnknownGPUError, UnknownModelError, DoesNotFitError, ValueError) as exc:
            raise FleetError(f"{where}: instances[{k}]: {exc}") from None
    return fleet


def load_fleet(spec: str) -> FleetSpec:
    """A built-in fleet by name, or a fleet YAML file by path."""
    from tokenpilot.cluster.fleets import FLEETS

    text = spec.strip()
    if text in FLEETS:
        return fleet_from_dict(FLEETS[text], f"built-in fleet {text!r}")
    path = Path(text)
    if not path.is_file():
        if text.endswith((".yaml", ".yml")) or "/" in text:
            raise FleetError(f"fleet file {text} not found")
        raise FleetError(f"unknown fleet {text!r}: give a YAML file or a built-in name "
                         f"({', '.join(FLEETS)})")
    content = read_text(path, FleetError)
    try:
        doc = yaml.safe_load(content)
    except yaml.YAMLError as exc:
        raise FleetError(f"cannot read fleet file {text}: {str(exc).splitlines()[0]}") from None
    from tokenpilot.calibrate.profile import resolve_profile_paths

    return fleet_from_dict(resolve_profile_paths(doc, path.parent, "instances"), str(path))


def build_engines(fleet: FleetSpec, queue_factory: Callable[[], Any] | None = None,
                  **config: Any) -> list[Engine]:
    """One engine per instance; ``config`` overrides EngineConfig fields for all of them.

    ``queue_factory`` makes each engine its own queue discipline (e.g. ``lambda: VTC()``);
    ``window`` (in ``config``) caps every request's KV at that many tokens, a sliding window
    (default: the model's own).
    """
    window = config.pop("window", -1)
    cms: dict[InstanceSpec, CostModel] = {}
    engines = []
    for name, spec in fleet.expand():
        cm = cms.get(spec) or cms.setdefault(spec, spec.cost_model())
        queue = queue_factory() if queue_factory is not None else None
        engines.append(Engine(cm, spec.engine_config(**config), name=name, queue=queue,
                              window=window))
    return engines


def mean_shape(requests: Sequence[Request]) -> tuple[float, float]:
    """Mean prompt and output tokens of a workload."""
    if not requests:
        raise FleetError("an empty workload has no shape to size the fleet by")
    n = len(requests)
    return (sum(r.prompt_tokens for r in requests) / n,
            sum(r.output_tokens for r in requests) / n)


def instance_capacity(spec: InstanceSpec, prompt: float, output: float,
                      cm: CostModel | None = None) -> float:
    """Saturated requests/s of one instance for requests of this mean shape (module doc)."""
    cm = cm or spec.cost_model()
    budget = spec.max_num_batched_tokens
    prefill_tps = budget / cm.prefill_time(budget)
    footprint = prompt + output / 2
    batch = max(1, min(spec.max_num_seqs, int(cm.kv_capacity_tokens // max(footprint, 1))))
    step = cm.decode_time(batch, int(batch * footprint))
    return batch / (batch * prompt / prefill_tps + output * step)


def fleet_capacity(fleet: FleetSpec, requests: Sequence[Request]) -> float:
    """Saturated requests/s of the whole fleet for this workload's mean shape (of the slower
    side for a disaggregated fleet: ``cluster.pd.capacity``)."""
    if any(s.role != "both" for s in fleet.instances):
        from tokenpilot.cluster.pd import capacity, check_fleet

        check_fleet(fleet)
        return capacity(fleet, requests)
    p, o = mean_shape(requests)
    return sum(instance_capacity(s, p, o) * s.count for s in fleet.instances)
