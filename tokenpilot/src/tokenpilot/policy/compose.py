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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, get_args, get_type_hints

import yaml

from tokenpilot.config_section import (
    NonNegativeFloat,
    NonNegativeInt,
    choice_error,
    from_mapping,
    read_text,
    read_value,
)
from tokenpilot.policy.router import NoHealthyInstance, Router, RouterError, cached_depth
from tokenpilot.policy.routers.earliest_completion import completion_s
from tokenpilot.policy.view import InstanceView
from tokenpilot.workload.request import Request

Filter = Callable[[Request, InstanceView], bool]
Scorer = Callable[[Request, Sequence[InstanceView], list[int]], list[float]]


def _filter_factories() -> dict[str, Callable[..., Filter]]:
    def max_kv_usage(limit: NonNegativeFloat) -> Filter:
        return lambda r, v: v.kv_usage <= limit

    def max_waiting(limit: NonNegativeInt) -> Filter:
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
Picker = Literal["max", "weighted", "random"]
PICKERS = get_args(Picker)


@dataclass(frozen=True)
class FilterSpec:
    """One filter: a name from ``FILTERS`` and the arguments its factory takes."""

    name: str
    args: tuple[Any, ...] = ()

    @classmethod
    def from_value(cls, value: Any, where: str,
                   error: type[Exception] = RouterError) -> FilterSpec:
        """Read ``name`` or ``{name: argument}``, the argument typed as its factory says."""
        if isinstance(value, str):
            name, given = value, ()
        elif isinstance(value, Mapping) and len(value) == 1:
            name, arg = next(iter(value.items()))
            given = (arg,)
        else:
            raise error(f"{where}: a filter is a name or a one-key mapping, got {value!r}")
        factory = FILTERS.get(name)
        if factory is None:
            raise error(f"{where}: {choice_error('filter', name, list(FILTERS))}")
        hints = [t for k, t in get_type_hints(factory, include_extras=True).items()
                 if k != "return"]
        if len(given) != len(hints):
            wants = "one argument" if hints else "no argument"
            raise error(f"{where}: filter {name!r} takes {wants}, got {list(given)}")
        return cls(name, tuple(read_value(t, a, f"{where}.{name}", error)
                               for t, a in zip(hints, given, strict=True)))

    def build(self) -> Filter:
        return FILTERS[self.name](*self.args)


@dataclass(frozen=True)
class ScorerSpec:
    shorthand: ClassVar[str] = "name"  # ``queue`` is ``{name: queue, weight: 1}``

    name: str
    weight: NonNegativeFloat = 1.0

    def __post_init__(self) -> None:
        if self.name not in SCORERS:
            raise ValueError(choice_error("scorer", self.name, list(SCORERS)))


@dataclass(frozen=True)
class Composition:
    """A composition as written in YAML (module docstring); ``compose`` builds its router."""

    filters: tuple[FilterSpec, ...] = ()
    scorers: tuple[ScorerSpec, ...] = ()
    picker: Picker = "max"
    seed: int = 0


class ComposedRouter(Router):
    """Filters, weighted scorers and a picker, usually built by ``compose(config)``."""

    name = "composed"

    def __init__(
        self, filters: Sequence[Filter], scorers: Sequence[tuple[Scorer, float]],
        picker: str = "max", seed: int = 0,
    ) -> None:
        super().__init__(seed)
        if picker not in PICKERS:
            raise RouterError(choice_error("picker", picker, PICKERS))
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


def compose(config: Composition | Mapping[str, Any],
            where: str = "router composition") -> ComposedRouter:
    """Build a ``ComposedRouter`` from a ``Composition`` or the mapping (parsed YAML) of one."""
    if not isinstance(config, Composition):
        config = from_mapping(Composition, config, where, RouterError)
    filters = [f.build() for f in config.filters]
    scorers = [(SCORERS[s.name], s.weight) for s in config.scorers]
    return ComposedRouter(filters, scorers, config.picker, config.seed)


def load_composed(path: str | Path) -> ComposedRouter:
    """Build a ``ComposedRouter`` from a YAML (or JSON) file."""
    path = Path(path)
    text = read_text(path, RouterError)
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise RouterError(f"{path}: not valid YAML/JSON ({exc})") from None
    return compose(data, str(path))
