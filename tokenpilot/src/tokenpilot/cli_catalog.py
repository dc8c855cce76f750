"""``tokenpilot gpus`` and ``tokenpilot models``: the catalogs every --gpu and --model reads."""

from __future__ import annotations

import dataclasses

from tokenpilot.hardware import get_gpu, list_gpus
from tokenpilot.models import get_model, list_models
from tokenpilot.output import FORMAT_OPTION, Format, emit
from tokenpilot.report.tables import table


def gpus(fmt: Format = FORMAT_OPTION) -> None:
    """The GPU catalog: the names --gpu takes, with the figures the cost model uses."""
    rows = [{**get_gpu(n).to_dict(), "aliases": list(get_gpu(n).aliases)} for n in list_gpus()]
    emit(rows, fmt, _render_gpus)


def _render_gpus(rows: list[dict]) -> str:
    def num(x: float | None, unit: str = "") -> str:
        return "-" if x is None else f"{x:,.0f}{unit}"

    body = [[g["name"], g["vendor"], f"{g['memory_gib']:.0f}", num(g["bf16_tflops"]),
             num(g["fp8_tflops"]), num(g["hbm_gbps"]),
             "-" if g["price_per_hour"] is None else f"{g['price_per_hour']:.2f}"]
            for g in rows]
    return (_with_aliases(table(["gpu", "vendor", "GiB", "bf16 TFLOPS", "fp8 TFLOPS",
                                 "HBM GB/s", "$/h"], body), rows)
            + "\n\nTFLOPS: dense peak per device; $/h: a public on-demand price per GPU, - "
              "where none is listed. --gpu takes a name or an alias, any case.")


def models(fmt: Format = FORMAT_OPTION) -> None:
    """The model catalog: the names --model takes (or give a Hugging Face config.json)."""
    rows = [dataclasses.asdict(get_model(n)) for n in list_models()]
    emit(rows, fmt, _render_models)


def _render_models(rows: list[dict]) -> str:
    body = [[m["name"], f"{m['params'] / 1e9:.1f}",
             f"{(m['active_params'] or m['params']) / 1e9:.1f}", str(m["layers"]),
             f"{m['heads']}/{m['kv_heads']}", "-" if not m["max_context"] else
             f"{m['max_context']:,}", f"{m['num_experts']}x{m['experts_per_token']}"
             if m["num_experts"] else "-"] for m in rows]
    return (_with_aliases(table(["model", "params B", "active B", "layers", "heads/KV",
                                 "context", "experts"], body), rows)
            + "\n\nparams: total, in billions; active: per token (MoE); heads/KV: attention "
              "and KV heads (--tp must divide the attention heads). --model also takes a path "
              "to a Hugging Face config.json.")


def _with_aliases(text: str, rows: list[dict]) -> str:
    """``text`` (a table: head, rule, one line per row) with each row's aliases appended,
    left-aligned: the one column of free text."""
    head, rule, *lines = text.split("\n")
    return "\n".join([f"{head}  aliases", f"{rule}  -------"] + [
        f"{line}  {', '.join(r['aliases'])}".rstrip() for line, r in zip(lines, rows,
                                                                        strict=True)])
