"""deploy/grafana/tokenpilot.json and deploy/prometheus/*.yaml against the gateway's metrics.

Every query names only metrics the gateway exports (read from its own registry's exposition)
or series a recording rule records; the rules are valid PromQL for ``promtool check rules``
(Debian's ``prometheus`` package), and ``promtool test rules`` runs the alerts' unit tests
(deploy/prometheus/alerts_test.yaml). Grafana's queries are checked by the same promtool, as
recording rules, with its variables filled in.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tokenpilot.gateway.app import create_app
from tokenpilot.gateway.config import GatewayConfig

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="no promtool on PATH (apt-get "
                                    "install prometheus)")
# PromQL words that are not metric names.
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and", "or",
            "unless", "bool", "offset", "inf", "nan"}


def exported() -> set[str]:
    """Every series name the gateway's /metrics can hold (a counter's ``_total``, a histogram's
    ``_bucket``, ``_count`` and ``_sum``), from its registry's exposition."""
    cfg = GatewayConfig.load(Path(__file__).resolve().parents[1] / "examples" / "gateway.yaml")
    text = create_app(cfg).state.gateway.metrics.render().decode()
    names = set()
    for name, kind in re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M):
        if kind == "counter":  # the TYPE line names it with or without its _total
            names.add(name if name.endswith("_total") else f"{name}_total")
        elif kind == "histogram":
            names |= {f"{name}_bucket", f"{name}_count", f"{name}_sum"}
        else:
            names.add(name)
    return names


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression reads (label names, functions, keywords and
    durations taken out first)."""
    e = re.sub(r'"(?:\\.|[^"])*"', "", expr)  # strings
    e = re.sub(r"\{[^}]*\}", "", e)  # label matchers
    e = re.sub(r"\[[^\]]*\]", "", e)  # ranges and subqueries
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", e)
    e = re.sub(r"(?<![\w:])\d+(\.\d+)?([eE][-+]?\d+)?", "", e)  # numbers (1e-9 too)
    names = set()
    for m in re.finditer(r"[a-zA-Z_:][a-zA-Z0-9_:]*", e):
        word, after = m.group(), e[m.end():].lstrip()[:1]
        if after == "(" or word.lower() in KEYWORDS:
            continue  # a function call or a keyword
        names.add(word)
    return names


def rules(path: Path) -> list[dict]:
    return [r for g in yaml.safe_load(path.read_text())["groups"] for r in g["rules"]]


def grafana_exprs() -> list[tuple[str, str]]:
    dash = json.loads((DEPLOY / "grafana" / "tokenpilot.json").read_text())
    out = [(p["title"], t["expr"]) for p in dash["panels"] for t in p["targets"]]
    out += [(a["name"], a["expr"]) for a in dash["annotations"]["list"] if "expr" in a]
    return out


def fill(expr: str) -> str:
    """A Grafana query as Prometheus gets it: the variables filled in."""
    return expr.replace("$__rate_interval", "1m").replace("$backend", ".*")


def test_every_query_names_a_metric_the_gateway_exports_or_a_rule_records() -> None:
    known = exported() | {r["record"] for r in rules(DEPLOY / "prometheus" / "recording.yaml")}
    assert "tokenpilot_responses_total" in known and "tokenpilot_ttft_seconds_bucket" in known
    queries = grafana_exprs()
    prom = DEPLOY / "prometheus"
    queries += [(r.get("record") or r["alert"], r["expr"])
                for f in ("recording.yaml", "alerts.yaml") for r in rules(prom / f)]
    assert len(queries) > 30
    for where, expr in queries:
        names = metric_names(fill(expr))
        assert names, f"{where}: no metric found in {expr!r}"
        unknown = names - known
        assert not unknown, f"{where}: {sorted(unknown)} not exported by the gateway"


def test_grafana_dashboard_has_the_dashboards_panels() -> None:
    dash = json.loads((DEPLOY / "grafana" / "tokenpilot.json").read_text())
    titles = " | ".join(p["title"] for p in dash["panels"]).lower()
    for what in ("prompt tokens", "generation tokens", "ttft", "tpot", "by outcome", "queue",
                 "kv-cache usage", "hit rate", "preemptions", "swapped", "compute-bound",
                 "fake balance", "budget", "rejections"):
        assert what in titles, what
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids))


def test_metric_names_finds_metrics_not_functions_or_labels() -> None:
    e = ('histogram_quantile(0.99, sum by (backend, le) (rate(a_bucket{le="1.0", x=~"$b"}[5m])))'
         ' / on (tenant) group_left b_total and bool c:rec')
    assert metric_names(e) == {"a_bucket", "b_total", "c:rec"}


@needs_promtool
def test_rules_are_valid_promql_and_the_alerts_fire_as_their_unit_tests_say(tmp_path) -> None:
    prom = DEPLOY / "prometheus"
    out = subprocess.run([PROMTOOL, "check", "rules", str(prom / "recording.yaml"),
                          str(prom / "alerts.yaml")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    out = subprocess.run([PROMTOOL, "test", "rules", "alerts_test.yaml"], cwd=prom,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    out = subprocess.run([PROMTOOL, "check", "config", str(prom / "prometheus.yml")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    # Grafana's queries, as recording rules: promtool parses each one.
    grafana = {"groups": [{"name": "grafana", "rules": [
        {"record": f"grafana:query_{i}", "expr": fill(e)} for i, (_, e) in
        enumerate(grafana_exprs())]}]}
    path = tmp_path / "grafana.yaml"
    path.write_text(yaml.safe_dump(grafana))
    out = subprocess.run([PROMTOOL, "check", "rules", str(path)], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
