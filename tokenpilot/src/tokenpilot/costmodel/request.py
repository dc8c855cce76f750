"""One request's latency, KV footprint and price on an instance, from the iteration costs."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from tokenpilot.costmodel.model import CostModel


@dataclass(frozen=True)
class RequestCost:
    prompt_tokens: int
    output_tokens: int
    batch: int
    prefill_s: float
    ttft_s: float  # with an empty queue: the prefill iteration emits the first token
    tpot_s: float  # mean time per output token after the first, at this batch size
    total_s: float
    prefill_bound: str
    decode_bound: str
    kv_bytes: float
    kv_pool_share: float  # this request's KV over the instance's KV pool
    kv_capacity_tokens: int
    max_concurrent_at_context: int
    batch_fits_kv: bool
    price_per_hour: float | None  # the whole instance (tp GPUs)
    usd_per_request: float | None
    usd_per_million_tokens: float | None

    def to_dict(self) -> dict:
        return asdict(self)


def estimate_request(cm: CostModel, prompt: int, output: int, batch: int = 1) -> RequestCost:
    """Latency and cost of a request decoded alongside ``batch - 1`` others of the same shape.

    The request pays all of its own prefill and a 1/batch share of each decode step it is in.
    """
    if prompt <= 0 or output <= 0 or batch <= 0:
        raise ValueError("prompt, output and batch must be positive")
    pre = cm.iteration(prefill=[(prompt, 0)])
    steps = output - 1
    span = decode_seconds(cm, prompt, output, batch)
    tpot = span / steps if steps else cm.decode_time(batch, batch * cm.kv_tokens_for(prompt))
    mid = cm.kv_tokens_for(prompt + output // 2)
    dec = cm.iteration(decode_n=batch, decode_ctx_sum=batch * mid)
    kv_tokens = cm.kv_tokens_for(prompt + output)
    price = cm.gpu.price_per_hour * cm.tp if cm.gpu.price_per_hour is not None else None
    usd = price / 3600 * (pre.time_s + span / batch) if price is not None else None
    return RequestCost(
        prompt_tokens=prompt,
        output_tokens=output,
        batch=batch,
        prefill_s=pre.time_s,
        ttft_s=pre.time_s,
        tpot_s=tpot,
        total_s=pre.time_s + span,
        prefill_bound=pre.prefill_bound or pre.bound,
        decode_bound=dec.decode_bound or dec.bound,
        kv_bytes=kv_tokens * cm.kv_bytes_per_token,
        kv_pool_share=kv_tokens / cm.kv_capacity_tokens,
        kv_capacity_tokens=cm.kv_capacity_tokens,
        max_concurrent_at_context=cm.max_sequences(prompt + output),
        batch_fits_kv=batch * kv_tokens <= cm.kv_capacity_tokens,
        price_per_hour=price,
        usd_per_request=usd,
        usd_per_million_tokens=usd / (prompt + output) * 1e6 if usd is not None else None,
    )


def decode_seconds(cm: CostModel, prompt: int, output: int, batch: int = 1) -> float:
    """Seconds of the decode steps after a request's first token, decoded alongside
    ``batch - 1`` others of the same shape: the span ``estimate_request`` prices."""
    steps = output - 1
    # Contexts grow by one token per step until a sliding window caps them.
    grow = steps if cm.window is None else max(0, min(steps, cm.window - prompt))
    span = cm.decode_span(batch, batch * cm.kv_tokens_for(prompt), batch, grow)
    end = cm.kv_tokens_for(prompt + grow)
    return span + cm.decode_span(batch, batch * end, 0, steps - grow)
