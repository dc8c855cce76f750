"""The roofline cost of one engine iteration for a model on ``tp`` accelerators.

An iteration's time is ``max(compute, memory) + overhead + comm``: compute is linear-layer and
attention FLOPs over calibrated peak FLOP/s, memory is weights plus KV bytes over calibrated HBM
bandwidth, overhead is a per-step plus per-sequence constant, and comm is the tensor-parallel
all-reduce (two per layer). For a fixed decode batch every term is linear in the summed context,
which is what lets :meth:`CostModel.decode_span` sum many steps in closed form.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tokenpilot.costmodel.calibration import Calibration, calibration_for
from tokenpilot.costmodel.steps import largest_within, steps_guess
from tokenpilot.hardware import GiB, GPUSpec
from tokenpilot.models import ModelSpec

DTYPE_BYTES: dict[str, float] = {
    "bf16": 2.0, "fp16": 2.0, "auto": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5,
}
ACT_BYTES = 2  # activations travel in bf16 whatever the weight format
MAX_BATCHED_TOKENS = 8192  # vLLM-style per-iteration token budget the activation reserve covers
MAX_SAMPLED_SEQS = 256
NON_TORCH_RESERVE = 0.5 * GiB  # CUDA context, NCCL and allocator slack per device


class DoesNotFitError(ValueError):
    """The weights and activation reserve leave no room for KV cache."""


@dataclass(frozen=True)
class IterationCost:
    """Time of one engine iteration and what bounded it."""

    time_s: float
    compute_s: float
    memory_s: float
    overhead_s: float
    comm_s: float
    bound: str  # "compute" | "memory": which side of the roofline the whole iteration hit
    prefill_bound: str | None = None
    decode_bound: str | None = None
    flops: float = 0.0
    bytes: float = 0.0

    def to_dict(self) -> dict:
        return dict(self.__dict__)


_EMPTY = IterationCost(0.0, 0.0, 0.0, 0.0, 0.0, "memory")


def _label(compute: float, memory: float) -> str:
    return "compute" if compute >= memory else "memory"


def attention_pairs(chunk: int, context: int, window: int | None) -> int:
    """(query, key) pairs when ``chunk`` new tokens follow ``context`` ones, causally.

    The token at absolute position j (1-based) sees min(j, window) keys.
    """
    lo, hi = context + 1, context + chunk
    if window is None or hi <= window:
        return (lo + hi) * chunk // 2
    if lo > window:
        return window * chunk
    return (lo + window) * (window - lo + 1) // 2 + window * (hi - window)


class CostModel:
    """Iteration times, KV sizes and capacity for ``model`` on ``tp`` x ``gpu``."""

    def __init__(
        self,
        model: ModelSpec,
        gpu: GPUSpec,
        tp: int = 1,
        weight_dtype: str = "bf16",
        kv_dtype: str = "bf16",
        mem_util: float = 0.9,
        calibration: Calibration | None = None,
        activation_reserve_bytes: float | None = None,
    ) -> None:
        if tp < 1:
            raise ValueError(f"tensor-parallel degree must be >= 1, got {tp}")
        for what, dt in (("weight", weight_dtype), ("KV", kv_dtype)):
            if dt not in DTYPE_BYTES:
                raise ValueError(f"unknown {what} dtype {dt!r}; known: {', '.join(DTYPE_BYTES)}")
        if not 0 < mem_util <= 1:
            raise ValueError(f"mem_util must be in (0, 1], got {mem_util}")
        self.model, self.gpu, self.tp = model, gpu, tp
        self.weight_dtype, self.kv_dtype, self.mem_util = weight_dtype, kv_dtype, mem_util
        self.cal = calibration or calibration_for(gpu.family)
        cal = self.cal

        self.kv_bytes_per_token: float = model.kv_elems_per_token(tp) * DTYPE_BYTES[kv_dtype]
        self.window: int | None = model.sliding_window
        wb = DTYPE_BYTES[weight_dtype]
        self.weight_bytes: float = model.params * wb
        self.weight_bytes_per_gpu: float = self.weight_bytes / tp
        self.activation_reserve_bytes: float = (
            activation_reserve_bytes
            if activation_reserve_bytes is not None
            else self._activation_reserve()
        )
        usable = gpu.memory_bytes * mem_util
        free = usable - self.weight_bytes_per_gpu - self.activation_reserve_bytes
        if free <= 0:
            raise DoesNotFitError(
                f"{model.name} does not fit on {tp} x {gpu.name}: weights need "
                f"{self.weight_bytes_per_gpu / GiB:.1f} GiB per GPU ({weight_dtype}) plus "
                f"{self.activation_reserve_bytes / GiB:.1f} GiB activation reserve, but only "
                f"{usable / GiB:.1f} GiB of {gpu.memory_gib:g} GiB is usable at mem_util "
                f"{mem_util:g}; try a larger --tp, a smaller weight dtype or a bigger GPU"
            )
        self.kv_capacity_tokens: int = int(free * tp // self.kv_bytes_per_token)

        # Rates of the whole instance, already scaled by the calibrated efficiencies.
        compute_dtype = "fp8" if weight_dtype == "fp8" else "bf16"
        self._linear_rate = tp * gpu.peak_flops(compute_dtype) * cal.flops_eff
        self._attn_rate = tp * gpu.peak_flops("bf16") * cal.attn_eff
        self._bw = tp * gpu.hbm_gbps * 1e9 * cal.bw_eff
        # Each rank swaps its own KV shard over its own host link, in parallel.
        self.host_bw_bytes_per_s: float = tp * gpu.host_link_gbps * 1e9

        m = model
        self._body_flops_per_token = 2.0 * m.body_active_params
        self._head_flops_per_seq = 2.0 * m.embedding_params
        self._attn_pair_prefill = m.attn_flops_per_pair(decode=False)
        self._attn_pair_decode = m.attn_flops_per_pair(decode=True)
        lookup = 0 if m.tied_embeddings else m.embedding_params  # a gather, not a full read
        routed = m.moe_layers * m.num_experts * m.expert_params
        self._always_read = (m.params - lookup - routed) * wb
        self._expert_bytes = m.moe_layers * m.expert_params * wb
        if tp > 1:
            link = gpu.link_gbps / 2 * 1e9 * cal.link_eff  # one direction of the link
            self._ar_latency = 2 * m.layers * cal.allreduce_latency_s * math.log2(tp)
            self._ar_per_token = 2 * m.layers * m.hidden * ACT_BYTES * 2 * (tp - 1) / tp / link
        else:
            self._ar_latency = self._ar_per_token = 0.0
        # A dense model streams the same weights every iteration: keep that time once, for the
        # engine's hot path (``iteration_timing``).
        self._dense = not m.is_moe
        self._dense_weights_s = self.weights_read(0) / self._bw
        # A "serial" device (hardware.py GPUSpec.roofline: one CPU core) takes compute plus
        # memory time per iteration, not the longer of the two: the compute side then carries
        # the memory time too, so every max(compute, memory) below is their sum.
        self._serial = gpu.roofline == "serial"
        self._coeff_cache: dict[int, tuple[float, float, float, float, float]] = {}

    # ---- memory ---------------------------------------------------------------------------
    def _activation_reserve(self) -> float:
        """Peak activation memory per device for a full token budget, as vLLM profiles it."""
        m, tp = self.model, self.tp
        width = m.hidden + 2 * -(-max(m.intermediate, m.moe_intermediate or 0) // tp)
        acts = MAX_BATCHED_TOKENS * width * ACT_BYTES * 2  # input and output of the widest op
        logits = MAX_SAMPLED_SEQS * m.vocab * 4
        return NON_TORCH_RESERVE + acts + logits

    def kv_capacity_blocks(self, block_size: int = 16) -> int:
        return self.kv_capacity_tokens // block_size

    def kv_tokens_for(self, context: int) -> int:
        """KV tokens a sequence of ``context`` tokens keeps (capped by a sliding window)."""
        return min(context, self.window) if self.window else context

    def max_sequences(self, context: int) -> int:
        """How many sequences of ``context`` tokens fit in the KV pool at once."""
        return self.kv_capacity_tokens // max(1, self.kv_tokens_for(context))

    def swap_time(self, tokens: int) -> float:
        return tokens * self.kv_bytes_per_token / self.host_bw_bytes_per_s

    def weights_read(self, tokens: int) -> float:
        """Weight bytes one iteration over ``tokens`` tokens streams from HBM.

        A MoE layer reads only the experts its tokens route to: with top-k of E experts chosen
        uniformly, E * (1 - (1 - k/E)^tokens) distinct experts in expectation.
        """
        if not self.model.is_moe or tokens <= 0:
            return self._always_read + (self._expert_bytes * self.model.num_experts)
        e, k = self.model.num_experts, self.model.experts_per_token
        touched = e * (1.0 - (1.0 - k / e) ** tokens)
        return self._always_read + self._expert_bytes * touched

    # ---- time -----------------------------------------------------------------------------
    def _decode_coeffs(self, n: int) -> tuple[float, float, float, float, float]:
        """(a_c, b_c, a_m, b_m, c): decode_time(n, S) = max(a_c + b_c S, a_m + b_m S) + c.

        On a serial device the compute line carries the memory line too (their sum), so the
        max is the sum and every closed form over these lines holds unchanged.
        """
        a_c = n * (self._body_flops_per_token + self._head_flops_per_seq) / self._linear_rate
        b_c = self._attn_pair_decode / self._attn_rate
        a_m = (self.weights_read(n) + n * self.kv_bytes_per_token) / self._bw
        b_m = self.kv_bytes_per_token / self._bw
        c = self.cal.step_overhead_s + self.cal.seq_overhead_s * n
        c += self._ar_latency + self._ar_per_token * n
        if self._serial:
            a_c, b_c = a_c + a_m, b_c + b_m
        return a_c, b_c, a_m, b_m, c

    def decode_coeffs(self, n: int) -> tuple[float, float, float, float, float]:
        """(a_c, b_c, a_m, b_m, c) of :meth:`_decode_coeffs`, cached per batch size ``n``.

        A simulation meets few distinct batch sizes but asks for them at every event.
        """
        co = self._coeff_cache.get(n)
        if co is None:
            co = self._coeff_cache[n] = self._decode_coeffs(n)
        return co

    def _roofline(
        self, prefill: Sequence[tuple[int, int]], decode_n: int, decode_ctx_sum: int,
    ) -> tuple[float, float, float, float, float, float, float, int, int, int]:
        """The one roofline of an iteration; ``iteration`` and ``iteration_timing`` read it.

        (compute, memory, constant, then for the report: prefill compute, prefill memory,
        decode compute, decode memory, prefill sequences, prefill tokens, attention pairs).
        The iteration takes ``max(compute, memory) + constant``. A decode-only batch is its
        :meth:`decode_coeffs` lines, the very terms ``decode_span`` sums.
        """
        n_p = t_p = pairs = kv_ctx = 0
        w = self.window
        for c, p in prefill:
            if c > 0:
                n_p += 1
                t_p += c
                if w is None:
                    pairs += (2 * p + c + 1) * c // 2  # attention_pairs without a window
                    kv_ctx += p
                else:
                    pairs += attention_pairs(c, p, w)
                    kv_ctx += min(p, w) if w else p
        n = decode_n if decode_n > 0 else 0
        bw, kvb = self._bw, self.kv_bytes_per_token
        weights = self._dense_weights_s if self._dense else self.weights_read(t_p + n) / bw
        dm_kv = (n + decode_ctx_sum) * kvb / bw if n else 0.0
        if not n_p:
            if not n:
                return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0
            a_c, b_c, a_m, b_m, step = self._coeff_cache.get(n) or self.decode_coeffs(n)
            dc = a_c + b_c * decode_ctx_sum
            return (dc, a_m + b_m * decode_ctx_sum, step, 0.0, 0.0, dc, weights + dm_kv,
                    0, 0, 0)
        pc = (t_p * self._body_flops_per_token + n_p * self._head_flops_per_seq) / self._linear_rate
        pc += pairs * self._attn_pair_prefill / self._attn_rate
        pm_kv = (kv_ctx + t_p) * kvb / bw
        if n:
            a_c, b_c, a_m, b_m = (self._coeff_cache.get(n) or self.decode_coeffs(n))[:4]
            dc = a_c + b_c * decode_ctx_sum
            if self._serial:  # the decode's compute alone: the memory is added once below
                dc -= a_m + b_m * decode_ctx_sum
        else:
            dc = 0.0
        const = self.cal.step_overhead_s + self.cal.seq_overhead_s * (n_p + n)
        const += self._ar_latency + self._ar_per_token * (t_p + n)
        memory = weights + pm_kv + dm_kv
        if self._serial:
            return (pc + dc + memory, memory, const, pc, weights + pm_kv, dc, weights + dm_kv,
                    n_p, t_p, pairs)
        return (pc + dc, memory, const, pc, weights + pm_kv, dc, weights + dm_kv, n_p, t_p,
                pairs)

    def iteration(
        self,
        prefill: Sequence[tuple[int, int]] = (),
        decode_n: int = 0,
        decode_ctx_sum: int = 0,
    ) -> IterationCost:
        """Cost of one iteration: prefill chunks (tokens, context before) plus a decode batch."""
        compute, memory, const, pc, pm, dc, dm, n_p, t_p, pairs = self._roofline(
            prefill, decode_n, decode_ctx_sum)
        n = decode_n if decode_n > 0 else 0
        if not n_p and not n:
            return _EMPTY
        comm = self._ar_latency + self._ar_per_token * (t_p + n)
        flops = (t_p + n) * self._body_flops_per_token + (n_p + n) * self._head_flops_per_seq
        flops += pairs * self._attn_pair_prefill + decode_ctx_sum * self._attn_pair_decode * (n > 0)
        return IterationCost(
            time_s=(compute if compute >= memory else memory) + const,
            compute_s=compute,
            memory_s=memory,
            overhead_s=const - comm,
            comm_s=comm,
            bound=_label(compute, memory),
            prefill_bound=_label(pc, pm) if n_p else None,
            decode_bound=_label(dc, dm) if n else None,
            flops=flops,
            bytes=memory * self._bw,
        )

    def iteration_timing(
        self,
        prefill: Sequence[tuple[int, int]] = (),
        decode_n: int = 0,
        decode_ctx_sum: int = 0,
    ) -> tuple[float, bool]:
        """(time_s, compute-bound) of :meth:`iteration`, without building its report.

        The engine times every iteration that prefills with this: building the full
        ``IterationCost`` (labels, FLOPs) took most of an event's time.
        """
        compute, memory, const, _, _, _, _, n_p, _, _ = self._roofline(
            prefill, decode_n, decode_ctx_sum)
        if not n_p and decode_n <= 0:
            return 0.0, False
        return (compute if compute >= memory else memory) + const, compute >= memory

    def iteration_time(
        self,
        prefill: Sequence[tuple[int, int]] = (),
        decode_n: int = 0,
        decode_ctx_sum: int = 0,
    ) -> float:
        """``iteration(...).time_s``, cheaply (see :meth:`iteration_timing`)."""
        return self.iteration_timing(prefill, decode_n, decode_ctx_sum)[0]

    def decode_time(self, n: int, ctx_sum: int) -> float:
        if n <= 0:
            return 0.0
        a_c, b_c, a_m, b_m, c = self.decode_coeffs(n)
        return max(a_c + b_c * ctx_sum, a_m + b_m * ctx_sum) + c

    def decode_span(self, n: int, ctx_sum0: int, growth: int, k: int) -> float:
        """Exactly sum(decode_time(n, ctx_sum0 + i*growth) for i in range(k)), in O(1)."""
        if n <= 0 or k <= 0:
            return 0.0
        a_c, b_c, a_m, b_m, c = self.decode_coeffs(n)
        # Term i is max(A + a*i, B + b*i) + c: two arithmetic series split where they cross.
        A, a = a_c + b_c * ctx_sum0, b_c * growth
        B, b = a_m + b_m * ctx_sum0, b_m * growth
        if a == b:
            split, first, second = (k, (A, a), (B, b)) if A >= B else (k, (B, b), (A, a))
        else:
            r = (B - A) / (a - b)  # index where the two lines meet
            if a > b:  # memory leads first, compute overtakes from ceil(r)
                split, first, second = min(max(math.ceil(r), 0), k), (B, b), (A, a)
            else:  # compute leads first, memory overtakes after floor(r)
                split, first, second = min(max(math.floor(r) + 1, 0), k), (A, a), (B, b)
        return _series(*first, 0, split) + _series(*second, split, k) + c * k

    def decode_steps_within(self, n: int, ctx_sum0: int, growth: int, budget_s: float) -> int:
        """The largest k >= 0 with decode_span(n, ctx_sum0, growth, k) <= budget_s.

        Solved in closed form on the line that bounds the first step, then checked (and, when
        the roofline side changes within the span, corrected) against :meth:`decode_span`.
        """
        if n <= 0:
            raise ValueError("decode_steps_within needs a decode batch of at least one sequence")
        if growth < 0:
            raise ValueError("context growth per step must be >= 0")
        if not budget_s < math.inf:
            raise ValueError(f"the time budget must be finite, got {budget_s}")
        a_c, b_c, a_m, b_m, c = self.decode_coeffs(n)
        A, B = a_c + b_c * ctx_sum0, a_m + b_m * ctx_sum0
        first = (A if A >= B else B) + c  # == decode_time(n, ctx_sum0)
        if budget_s < first:
            return 0
        slope = (b_c if A >= B else b_m) * growth
        guess = steps_guess(first, slope, budget_s)
        return largest_within(lambda k: self.decode_span(n, ctx_sum0, growth, k), guess,
                              budget_s, strict=False)

    def prefill_time(self, tokens: int, context: int = 0) -> float:
        return self.iteration(prefill=[(tokens, context)]).time_s


def _series(start: float, step: float, i0: int, i1: int) -> float:
    """sum(start + step*i for i in range(i0, i1))."""
    m = i1 - i0
    if m <= 0:
        return 0.0
    return m * start + step * (m * (i0 + i1 - 1) / 2)

