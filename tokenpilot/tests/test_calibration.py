import json

import pytest
from typer.testing import CliRunner

from tokenpilot.cli import app
from tokenpilot.fidelity import fidelity_dir, fidelity_report

pytestmark = pytest.mark.skipif(
    fidelity_dir() is None, reason="../shared/fidelity (beside the repository) is absent"
)


@pytest.fixture(scope="module")
def report():
    return fidelity_report()


def test_splitwise_targets(report):
    """The issue's accuracy targets: <= 15% MAPE for prefill and decode across TP 2/4/8."""
    assert report.mape["splitwise prefill"] <= 15.0
    assert report.mape["splitwise decode"] <= 15.0
    assert report.counts["splitwise decode"] == 315


def test_only_impossible_rows_are_excluded(report):
    excluded = [r for r in report.rows if r.group.startswith("splitwise") and not r.included]
    assert len(excluded) == 5  # TP2, 64 x 512 prefill: faster than 100% of peak
    assert all("100%-of-peak" in r.note for r in excluded)


def test_published_static_rows_are_predicted(report):
    static = [r for r in report.rows if r.group == "published static"]
    assert len(static) >= 6 and all(r.predicted for r in static)
    dynamic = [r for r in report.rows if r.group == "published dynamic"]
    assert dynamic and all(r.predicted is None and "Poisson" in r.note for r in dynamic)


def test_calibrate_cli():
    r = CliRunner().invoke(app, ["calibrate", "--report", "--format", "json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["mape_pct"]["splitwise decode"] <= 15.0
    assert len(d["rows"]) > 600
    assert CliRunner().invoke(app, ["calibrate"]).exit_code == 2


def test_published_static_target(report):
    """The issue's target for the published static rows: mean abs. error <= 20%."""
    assert report.mape["published static"] <= 20.0


def test_splitwise_rows_run_under_the_legacy_engine_profile(report):
    """The a100 family holds the newer engines' per-sequence overhead; the Splitwise timings
    (a 2023 vLLM) are simulated with vllm-v0-legacy's added, without which decode is too fast."""
    from tokenpilot.costmodel import calibration_for
    from tokenpilot.engines import get_engine
    from tokenpilot.fidelity import SPLITWISE, SPLITWISE_ENGINE, splitwise_rows

    assert get_engine(SPLITWISE_ENGINE).seq_overhead_s > calibration_for("a100").seq_overhead_s
    def big_batch_decode_bias(rows):  # mean signed % over decode steps of >= 16 sequences
        errs = [r.error_pct for r in rows if r.group.startswith("splitwise decode")
                and int(r.condition.split("batch ")[1].split(",")[0]) >= 16]
        return sum(errs) / len(errs)

    bare = splitwise_rows(fidelity_dir() / SPLITWISE, calibration_for)  # family alone
    assert big_batch_decode_bias(bare) < -8.0 < big_batch_decode_bias(report.rows) < 8.0
