"""One reader for every config section: ``config_section.from_mapping`` and the files it reads."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

import pytest
from builders import cli

from tokenpilot.cluster.fleet import FleetError, fleet_from_dict, load_fleet
from tokenpilot.cluster.fleets import FLEETS
from tokenpilot.config_section import (
    NonNegativeFloat,
    PositiveInt,
    SectionError,
    from_mapping,
)
from tokenpilot.gateway.config import ConfigError, GatewayConfig
from tokenpilot.policy.compose import ComposedRouter, Composition, load_composed
from tokenpilot.policy.router import RouterError

ROOT = Path(__file__).resolve().parents[1]
WL = "poisson:rps=4,n=40,prompt=600,output=100"


@dataclass(frozen=True)
class Inner:
    shorthand: ClassVar[str] = "name"

    name: str
    share: NonNegativeFloat = 0.5

    def __post_init__(self) -> None:
        if self.share > 1:
            raise ValueError("share must be at most 1")


@dataclass
class Outer:
    count: PositiveInt = 1
    ratio: float = 1.0
    on: bool = False
    mode: Literal["fast", "slow"] = "fast"
    limit: int | None = None
    labels: tuple[str, ...] = ()
    weights: dict[str, float] = field(default_factory=dict)
    inner: Inner = field(default_factory=lambda: Inner("x"))
    items: list[Inner] = field(default_factory=list)
    anything: Any = None


def read(data: Any) -> Outer:
    return from_mapping(Outer, data, "f.yaml: sec")


def error(data: Any) -> str:
    with pytest.raises(SectionError) as exc:
        read(data)
    text = str(exc.value)
    assert "\n" not in text and text.startswith("f.yaml: sec")
    return text


# ---- the reader ---------------------------------------------------------------------------------
def test_values_are_read_by_their_annotations():
    o = read({"count": 3.0, "ratio": "1e6", "on": True, "mode": "slow", "limit": 7,
              "labels": "a", "weights": {1: 2}, "inner": "y", "items": ["p", {"name": "q",
                                                                         "share": 1}],
              "anything": [{"free": "form"}]})
    assert o.count == 3 and isinstance(o.count, int)
    assert o.ratio == 1e6 and isinstance(o.ratio, float)  # YAML 1.1 reads 1e6 as a string
    assert o.on is True and o.mode == "slow" and o.limit == 7
    assert o.labels == ("a",)  # a lone scalar is a list of one
    assert o.weights == {"1": 2.0}  # a number read as a mapping key is a name
    assert o.inner == Inner("y")  # the shorthand: a scalar for {name: ...}
    assert o.items == [Inner("p"), Inner("q", 1.0)]
    assert o.anything == [{"free": "form"}]


def test_absent_and_null_keys_take_the_defaults():
    assert read(None) == Outer() == read({})
    assert read({"labels": None, "inner": None, "limit": None}) == Outer()


def test_unknown_keys_are_named_with_the_closest_and_the_valid_ones():
    assert error({"cuont": 2}) == (
        "f.yaml: sec: unknown key 'cuont' (did you mean 'count'?); valid keys: count, ratio, on, "
        "mode, limit, labels, weights, inner, items, anything")
    assert "unknown keys 'zzz', 'onn' (did you mean 'on'?)" in error({"zzz": 1, "onn": 1})
    assert error({"inner": {"nme": "a"}}).startswith(
        "f.yaml: sec.inner: unknown key 'nme' (did you mean 'name'?); valid keys: name, share")


@pytest.mark.parametrize("data, message", [
    ({"count": 0}, "sec.count: expected a whole number >= 1, got 0"),
    ({"count": 1.5}, "sec.count: expected a whole number >= 1, got 1.5"),
    ({"count": "two"}, "sec.count: expected a whole number >= 1, got 'two'"),
    ({"count": True}, "sec.count: expected a whole number >= 1, got true"),
    ({"ratio": "fast"}, "sec.ratio: expected a number, got 'fast'"),
    ({"ratio": float("inf")}, "sec.ratio: expected a number, got inf"),
    ({"on": "yes"}, "sec.on: expected true or false, got 'yes'"),
    ({"mode": "fats"}, "sec.mode: expected one of fast, slow, got 'fats' (did you mean 'fast'?)"),
    ({"limit": "none"}, "sec.limit: expected a whole number or null, got 'none'"),
    ({"labels": [1]}, "sec.labels[0]: expected a string, got 1"),
    ({"labels": {"a": 1}}, "sec.labels: expected a list, got {'a': 1}"),
    ({"weights": ["a"]}, "sec.weights: expected a mapping, got ['a']"),
    ({"weights": {"a": "b"}}, "sec.weights.a: expected a number, got 'b'"),
    ({"inner": {"share": 0.1}}, "sec.inner: missing required key 'name'"),
    ({"inner": {"name": "a", "share": -1}}, "sec.inner.share: expected a number >= 0, got -1"),
    ({"items": [{"name": "a", "share": 2}]}, "sec.items[0]: share must be at most 1"),
    ({"items": [[1]]}, "sec.items[0]: expected a mapping of name, share, got [1]"),
    ([1, 2], "sec: expected a mapping of count, ratio, on, mode"),
])
def test_every_bad_value_gets_one_line_naming_its_path(data, message):
    assert message in error(data)


def test_a_section_built_in_code_is_taken_as_it_is():
    inner = Inner("z", 0.25)
    assert read({"inner": inner, "items": [inner]}).items[0] is inner


def test_the_callers_error_class_is_raised():
    with pytest.raises(FleetError, match=r"^x: count: expected"):
        from_mapping(Outer, {"count": -1}, "x", FleetError)


# ---- the gateway file ---------------------------------------------------------------------------
def test_the_example_gateway_file_reads_as_documented():
    cfg = GatewayConfig.load(ROOT / "examples" / "gateway.yaml")
    assert [b.name for b in cfg.backends] == ["h100", "a100", "l40s"]
    assert cfg.backends[2].max_concurrency == 64 and cfg.backends[0].max_concurrency == 256
    assert isinstance(cfg.router, Composition) and cfg.router.picker == "max"
    assert [(f.name, f.args) for f in cfg.router.filters] == [
        ("healthy", ()), ("max_kv_usage", (0.95,)), ("fits_context", ())]
    assert cfg.admission.limits_for("acme").weight == 2.0
    assert cfg.admission.limits_for("anyone").max_inflight_tokens == 400_000
    assert cfg.tenants["sk-beta-example"] == "beta" and cfg.queue_discipline == "vtc"
    assert (cfg.listen.host, cfg.listen.port, cfg.limits.max_tokens) == ("127.0.0.1", 8080, 8192)


def test_a_gateway_file_with_a_bare_url_and_defaults(tmp_path):
    f = tmp_path / "gw.yaml"
    f.write_text("backends: http://127.0.0.1:9/\nlimits:\n")
    cfg = GatewayConfig.load(f)
    b = cfg.backends[0]
    assert (b.url, b.name, b.kind, b.labels) == ("http://127.0.0.1:9", "127.0.0.1:9", "vllm", ())
    assert cfg.router == "earliest-completion" and cfg.limits.retries == 2


@pytest.mark.parametrize("text, message", [
    ("limits: {retires: 0}\n",
     "limits: unknown key 'retires' (did you mean 'retries'?); valid keys: max_body_bytes,"),
    ("backends:\n  - {url: 'http://a:1', max_concurrency: lots}\n",
     "backends[0].max_concurrency: expected a whole number >= 1, got 'lots'"),
    ("backends: ['ftp://a']\n", "backends[0]: 'ftp://a' is not an http(s) URL"),
    ("router: {scorers: [{name: queue, wieght: 2}]}\n",
     "router.scorers[0]: unknown key 'wieght' (did you mean 'weight'?)"),
    ("router: {filters: [{max_kv_usage: high}]}\n",
     "router.filters[0].max_kv_usage: expected a number >= 0, got 'high'"),
    ("admission: {tenants: {acme: {weight: heavy}}}\n",
     "admission.tenants.acme.weight: expected a number > 0, got 'heavy'"),
    ("queue_discipline: fifo\n", "queue_discipline: expected one of fcfs, priority, vtc"),
])
def test_gateway_file_errors_name_the_file_and_the_key(tmp_path, text, message):
    f = tmp_path / "gw.yaml"
    f.write_text(text)
    with pytest.raises(ConfigError) as exc:
        GatewayConfig.load(f)
    assert str(exc.value).startswith(f"{f}: {message}")
    assert "\n" not in str(exc.value)


# ---- fleet files and compositions ---------------------------------------------------------------
def test_built_in_fleets_read_and_round_trip():
    for name in FLEETS:
        fleet = load_fleet(name)
        assert fleet.name == name and fleet.size > 0
        assert fleet_from_dict(fleet.to_dict()) == fleet


def test_fleet_file_errors_name_the_file_and_the_key(tmp_path):
    f = tmp_path / "fleet.yaml"
    f.write_text("instances:\n  - {gpu: l4, model: llama-3.1-8b, max_num_seq: 8}\n")
    with pytest.raises(FleetError, match=r"fleet.yaml: instances\[0\]: unknown key 'max_num_seq' "
                                         r"\(did you mean 'max_num_seqs'\?\)"):
        load_fleet(str(f))
    f.write_text("instances:\n  - {gpu: l4, model: llama-3.1-8b, role: prefil}\n")
    with pytest.raises(FleetError, match=r"instances\[0\]\.role: expected one of both, prefill, "
                                         r"decode, got 'prefil' \(did you mean 'prefill'\?\)"):
        load_fleet(str(f))


def test_composition_files_read_the_same_way(tmp_path):
    f = tmp_path / "router.yaml"
    f.write_text("filters: [healthy, {label: fast}]\nscorers: [queue, {name: kv, weight: 2}]\n")
    router = load_composed(f)
    assert isinstance(router, ComposedRouter) and len(router.filters) == 2
    assert [w for _, w in router.scorers] == [1.0, 2.0]
    f.write_text("scorers: [qeue]\n")
    with pytest.raises(RouterError, match=r"router.yaml: scorers\[0\]: unknown scorer 'qeue' "
                                          r"\(did you mean 'queue'\?\); valid scorers: queue"):
        load_composed(f)


# ---- through the CLI: one line on stderr, exit 2, no traceback ----------------------------------
def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from tokenpilot.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=120)


def _one_line_error(stderr: str) -> str:
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


@pytest.mark.parametrize("name, command, text, message", [
    ("gw.yaml", ["serve", "--config"],
     "backends: ['http://127.0.0.1:9']\nhealth: {intreval_ms: 100}\n",
     "health: unknown key 'intreval_ms' (did you mean 'interval_ms'?)"),
    ("gw.yaml", ["serve", "--config"],
     "backends: ['http://127.0.0.1:9']\ntimeouts: {total_s: soon}\n",
     "timeouts.total_s: expected a number > 0, got 'soon'"),
    ("fleet.yaml", ["simulate", "--workload", WL, "--fleet"],
     "instances:\n  - {gpu: l4, model: llama-3.1-8b, cuont: 2}\n",
     "instances[0]: unknown key 'cuont' (did you mean 'count'?)"),
    ("fleet.yaml", ["simulate", "--workload", WL, "--fleet"],
     "instances:\n  - {gpu: l4, model: llama-3.1-8b, count: many}\n",
     "instances[0].count: expected a whole number >= 1, got 'many'"),
])
def test_a_bad_config_file_through_the_cli(tmp_path, name, command, text, message):
    f = tmp_path / name
    f.write_text(text)
    r = _cli(*command, str(f))
    assert r.returncode == 2
    assert f"{f}: {message}" in _one_line_error(r.stderr)


def test_serve_with_a_bad_backend_flag():
    r = cli("serve", "--backend", "127.0.0.1:9")
    assert r.exit_code == 2 and isinstance(r.exception, SystemExit)
    assert "--backend 127.0.0.1:9: '127.0.0.1:9' is not an http(s) URL" in r.stderr


# ---- one reader ---------------------------------------------------------------------------------
def test_no_section_validator_is_written_by_hand_elsewhere():
    src = ROOT / "src" / "tokenpilot"
    hits = [p.relative_to(src).as_posix() for p in src.rglob("*.py")
            if "unknown key" in p.read_text(encoding="utf-8")]
    assert hits == ["config_section.py"]
