"""The reference pages of the files and strings tokenpilot reads, made from the code's own key
lists (the dataclasses ``config_section`` reads, the generators' signatures, the router
registries), so they cannot drift from it: ``tests/test_references.py`` checks the committed
``docs/reference.md`` against ``render()``.

    python -m tokenpilot.reference > tokenpilot/docs/reference.md      (to regenerate it)
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
from typing import Annotated, Any, get_args, get_origin

from tokenpilot.config_section import _describe, _fields


def _default(cls: type, name: str) -> str:
    f = next(f for f in dataclasses.fields(cls) if f.name == name)
    if f.default is not dataclasses.MISSING:
        value = f.default
    elif f.default_factory is not dataclasses.MISSING:
        value = f.default_factory()
    else:
        return "required"
    if dataclasses.is_dataclass(value):
        return "(section)"
    return f"`{value!r}`" if not isinstance(value, str) else f'`"{value}"`'


def _nested(annotation: Any) -> list[type]:
    """The dataclasses an annotation holds (itself, or inside a list, tuple, dict or union)."""
    if dataclasses.is_dataclass(annotation):
        return [annotation]
    if get_origin(annotation) is Annotated:  # its metadata (Bounds) is no section
        return _nested(get_args(annotation)[0])
    return [c for a in get_args(annotation) for c in _nested(a)]


def _section(cls: type, title: str, seen: set[type]) -> list[str]:
    seen.add(cls)
    out = [f"### {title}", "", "| key | value | default |", "|---|---|---|"]
    later: list[tuple[type, str]] = []
    for name, (annotation, _) in _fields(cls).items():
        if get_origin(annotation) is not None or dataclasses.is_dataclass(annotation):
            later += [(c, f"{title}.{name}") for c in _nested(annotation) if c not in seen]
        kind = _describe(annotation).replace("|", "or")
        out.append(f"| `{name}` | {kind} | {_default(cls, name)} |")
    out.append("")
    for c, t in later:
        if c not in seen:
            out += _section(c, t, seen)
    return out


def fleet_file() -> list[str]:
    from tokenpilot.cluster.fleet import FleetSpec

    return ["## Fleet file", "", "`tokenpilot simulate --fleet FILE`; example: "
            "`examples/fleet.yaml`.", "", *_section(FleetSpec, "fleet", set())]


def gateway_file() -> list[str]:
    from tokenpilot.gateway.config import GatewayConfig

    return ["## Gateway file", "", "`tokenpilot serve --config FILE`; examples: "
            "`examples/gateway.yaml`, `examples/gateway-vllm.yaml`. A backend may be given as "
            "its URL alone.", "", *_section(GatewayConfig, "gateway", set())]


def workload_grammar() -> list[str]:
    from tokenpilot.workload import spec
    from tokenpilot.workload.loaders import TRACES

    doc = inspect.getdoc(spec) or ""
    grammar = doc.split("Grammar::", 1)[1].split("Every generator", 1)[0].strip("\n")
    out = ["## Workload spec", "", "`--workload SPEC` (`simulate`, `compare`, `bench`); a file "
           "example: `examples/workload.csv`.", "", "```", grammar.rstrip(), "```", "",
           f"Named traces: {', '.join(f'`{t}`' for t in TRACES)}. Modifiers after `@`: "
           f"{', '.join(f'`{m}`' for m in spec.MODIFIERS)}.", "",
           "| generator | parameters (default) |", "|---|---|"]
    for name, fn in spec.GENERATORS.items():
        params = [f"`{p.name}`" + ("" if p.default is inspect.Parameter.empty
                                   else f"={p.default!r}")
                  for p in inspect.signature(fn).parameters.values()]
        out.append(f"| `{name}` | {', '.join(params)} |")
    return [*out, ""]


def router_vocabulary() -> list[str]:
    from tokenpilot.policy.compose import FILTERS, PICKERS, SCORERS
    from tokenpilot.policy.routers import ROUTERS

    out = ["## Router vocabulary", "", "`--router SPEC`: `NAME`, `NAME:key=value,...` or a "
           "composition file (example: `examples/router.yaml`).", "",
           "| router | parameters | what it does |", "|---|---|---|"]
    for name, cls in ROUTERS.items():
        params = [p for p in inspect.signature(cls.__init__).parameters.values()
                  if p.name != "self" and p.kind is p.POSITIONAL_OR_KEYWORD]
        shown = ", ".join(f"`{p.name}`={p.default!r}" for p in params) or "-"
        own = cls.__dict__.get("__doc__") or inspect.getdoc(sys.modules[cls.__module__]) or ""
        doc = inspect.cleandoc(own).split("\n\n")[0].replace("\n", " ").replace("|", "/")
        out.append(f"| `{name}` | {shown} | {doc} |")
    filters = []
    for name, factory in FILTERS.items():
        args = list(inspect.signature(factory).parameters)
        filters.append(f"`{name}`" if not args else f"`{{{name}: {args[0].upper()}}}`")
    out += ["", "A composition file: `filters` (a list), `scorers` (a list of "
            "`{name, weight}`), `picker`, `seed`.", "",
            f"- filters: {', '.join(filters)}",
            f"- scorers: {', '.join(f'`{s}`' for s in SCORERS)}",
            f"- pickers: {', '.join(f'`{p}`' for p in PICKERS)}", ""]
    return out


def plan_inputs() -> list[str]:
    from tokenpilot.hardware import get_gpu, list_gpus
    from tokenpilot.plan.slo import SLO_FORM

    rows = [f"| `{g}` | {'-' if (p := get_gpu(g).price_per_hour) is None else f'{p:g}'} |"
            for g in list_gpus()]
    return ["## Plan inputs", "", "`tokenpilot plan --slo SLO`: " + SLO_FORM.replace(
        "expected ", "") + "; durations in `s`, `ms` or `us` (a bare number is seconds), "
        "attainment a fraction or a percentage (default 0.99).", "",
        "`--prices FILE`: a YAML or JSON mapping of GPU name (or alias) to dollars per "
        "GPU-hour, e.g. `h100-sxm: 2.49`; a GPU it does not name takes the catalog's price "
        "(`-`: none, so it must be named). An instance of TP `t` costs `t` times its GPU's.",
        "", "| GPU | catalog $/GPU-hour |", "|---|---|", *rows, ""]


def endpoints_file() -> list[str]:
    from tokenpilot.gateway.config import BackendConfig

    rows = [r for r in _section(BackendConfig, "endpoint", set())[2:] if not r.startswith(
        "| `url` ")]
    return ["## Endpoints file", "", "`tokenpilot epp --endpoints FILE`: the endpoint "
            "picker's pool, re-read when it changes. `endpoints:` a list, each `ip:port` or a "
            "mapping with `address: ip:port` (required; what the picker names in "
            "`x-gateway-destination-endpoint`) and these keys of a gateway backend:", "",
            *rows]


def render() -> str:
    parts = ["# tokenpilot reference", "",
             "Generated by `python -m tokenpilot.reference` from the code's own key lists; "
             "a test fails when the code and this page differ.", "",
             *fleet_file(), *workload_grammar(), *gateway_file(), *router_vocabulary(),
             *plan_inputs(), *endpoints_file()]
    return "\n".join(parts).rstrip() + "\n"


if __name__ == "__main__":
    print(render(), end="")
