"""Composed routing: filters, then weighted scorers, then a picker, configured from data.

The shape of the Gateway API Inference Extension's endpoint picker: no class per combination,
just a file::

    filters: [healthy, {max_kv_usage: 0.95}, fits_context]
    scorers:
      - {name: queue, weight: 1}
      - {name: prefix, weight: 2}
      - {name: kv, weight: 1}
    picker: max          # max | weighted | random
    seed: 0

Filters narrow the candidates; one that would leave none is skipped (routing somewhere beats
routing nowhere; admission is where requests get refused). Each scorer gives every candidate a
score in [0, 1], higher is better; the picker takes the weighted sum. ``max`` breaks ties at
random, ``weighted`` draws with probability proportional to the total, ``random`` ignores it.

Filters: healthy, max_kv_usage: U, max_waiting: N, fits_context, label: NAME.
Scorers: queue (waiting requests), running, tokens (outstanding tokens), kv (free KV share),
prefix (share of the prompt's prefix blocks the instance holds), eta (earliest completion, as
the ``earliest-completion`` router predicts it). Load scorers are min-max normalised over the
candidates: the least-loaded gets 1, the most loaded 0.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from tokenpilot.policy.router import NoHealthyInstance, Router, RouterError, cached_depth
from tokenpilot.policy.routers.earliest_completion import completion_s
from tokenpilot.policy.view import InstanceView
from tokenpilot.workload.request import Request

Filter = Callable[[Request, InstanceView], bool]
Scorer = Callable[[Request, Sequence[InstanceView], list[int]], list[float]]


def _filter_factories() -> dict[str, Callable[..., Filter]]:
    def max_kv_usage(limit: float) -> Filter:
        return lambda r, v: v.kv_usage <= limit

    def max_waiting(limit: int) -> Filter:
        return lambda r, v: v.num_waiting <= limit

    def label(name: str) -> Filter:
        return lambda r, v: name in v.labels

    return {
        "healthy": lambda: lambda r, v: v.healthy,
        "max_kv_usage": max_kv_usage,
        "max_waiting": max_waiting,
        "fits_context": lambda: lambda r, v: not v.max_model_len
        or r.total_tokens <= v.max_model_len,
        "label": label,
    }


def _lower_is_better(values: list[float]) -> list[float]:
    lo, hi = min(values), max(values)
    if hi == lo:
        return [1.0] * len(values)
    span = hi - lo
    return [(hi - x) / span for x in values]


def _prefix_score(r: Request, views: Sequence[InstanceView], c: list[int]) -> list[float]:
    blocks = len(r.prefix_hashes)
    if not blocks:
        return [0.0] * len(c)
    return [cached_depth(r.prefix_hashes, views[i].cached_prefixes) / blocks for i in c]


SCORERS: dict[str, Scorer] = {
    "queue": lambda r, vs, c: _lower_is_better([vs[i].num_waiting for i in c]),
    "running": lambda r, vs, c: _lower_is_better([vs[i].num_running for i in c]),
    "tokens": lambda r, vs, c: _lower_is_better([vs[i].outstanding_tokens for i in c]),
    "kv": lambda r, vs, c: [1.0 - vs[i].kv_usage for i in c],
    "prefix": _prefix_score,
    "eta": lambda r, vs, c: _lower_is_better([completion_s(r, vs[i]) for i in c]),
}
FILTERS = _filter_factories()
PICKERS = ("max", "weighted", "random")


class ComposedRouter(Router):
    """Filters, weighted scorers and a picker, usually built by ``compose(config)``."""

    name = "composed"

    def __init__(
        self, filters: Sequence[Filter], scorers: Sequence[tuple[Scorer, float]],
        picker: str = "max", seed: int = 0,
    ) -> None:
        super().__init__(seed)
        if picker not in PICKERS:
            raise RouterError(f"unknown picker {picker!r}; valid pickers: {', '.join(PICKERS)}")
        self.filters = list(filters)
        self.scorers = list(scorers)
        self.picker = picker

    def pick(self, request: Request, views: Sequence[InstanceView]) -> int:
        candidates = [i for i, v in enumerate(views) if v.healthy]
        if not candidates:
            raise NoHealthyInstance(len(views))
        for keep in self.filters:
            narrowed = [i for i in candidates if keep(request, views[i])]
            if narrowed:
                candidates = narrowed
        if len(candidates) == 1 or self.picker == "random" or not self.scorers:
            return self.rng.choice(candidates)
        total = [0.0] * len(candidates)
        for score, weight in self.scorers:
            for k, s in enumerate(score(request, views, candidates)):
                total[k] += weight * s
        if self.picker == "weighted" and sum(total) > 0:
            return self.rng.choices(candidates, weights=total)[0]
        top = max(total)
        return self.rng.choice([i for i, t in zip(candidates, total, strict=True) if t == top])


def compose(config: Mapping[str, Any]) -> ComposedRouter:
    """Build a ``ComposedRouter`` from a mapping (the parsed YAML)."""
    if not isinstance(config, Mapping):
        raise RouterError("a router composition must be a mapping with filters, scorers, picker")
    unknown = set(config) - {"filters", "scorers", "picker", "seed"}
    if unknown:
        raise RouterError(f"unknown composition key(s) {', '.join(sorted(unknown))}; "
                          "valid keys: filters, scorers, picker, seed")
    filters = [_make_filter(item) for item in config.get("filters") or []]
    scorers = [_make_scorer(item) for item in config.get("scorers") or []]
    return ComposedRouter(filters, scorers, str(config.get("picker", "max")),
                          int(config.get("seed", 0)))


def load_composed(path: str | Path) -> ComposedRouter:
    """Build a ``ComposedRouter`` from a YAML (or JSON) file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RouterError(f"{path}: cannot read router composition ({exc.strerror})") from None
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise RouterError(f"{path}: not valid YAML/JSON ({exc})") from None
    try:
        return compose(data)
    except RouterError as exc:
        raise RouterError(f"{path}: {exc}") from None


def _make_filter(item: Any) -> Filter:
    if isinstance(item, str):
        name, args = item, ()
    elif isinstance(item, Mapping) and len(item) == 1:
        name, arg = next(iter(item.items()))
        args = (arg,)
    else:
        raise RouterError(f"a filter is a name or a one-key mapping, got {item!r}")
    factory = FILTERS.get(name)
    if factory is None:
        raise RouterError(f"unknown filter {name!r}; valid filters: {', '.join(FILTERS)}")
    try:
        return factory(*args)
    except TypeError:
        raise RouterError(f"filter {name!r} got the wrong argument(s): {list(args)}") from None


def _make_scorer(item: Any) -> tuple[Scorer, float]:
    if isinstance(item, str):
        item = {"name": item}
    if not isinstance(item, Mapping) or "name" not in item:
        raise RouterError(f"a scorer is a name or {{name: ..., weight: ...}}, got {item!r}")
    scorer = SCORERS.get(item["name"])
    if scorer is None:
        raise RouterError(f"unknown scorer {item['name']!r}; valid scorers: {', '.join(SCORERS)}")
    extra = set(item) - {"name", "weight"}
    if extra:
        raise RouterError(f"scorer {item['name']!r}: unknown key(s) {', '.join(sorted(extra))}")
    try:
        weight = float(item.get("weight", 1.0))
    except (TypeError, ValueError):
        raise RouterError(f"scorer {item['name']!r}: weight must be a number") from None
    if weight < 0:
        raise RouterError(f"scorer {item['name']!r}: weight must not be negative")
    return scorer, weight
