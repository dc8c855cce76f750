"""A gateway backend's ``engine:`` and ``calibration:`` reach the cost model behind its view
(the router's speeds and admission's TTFT prediction), and bad values are one-line errors."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest
import yaml

from tokenpilot.calibrate.profile import Profile, write_profile
from tokenpilot.costmodel import calibration_for
from tokenpilot.gateway.backends import Backend
from tokenpilot.gateway.config import ConfigError, GatewayConfig
from tokenpilot.gateway.fleet import gateway_config
from tokenpilot.gateway.simbackend import SimConfig, create_sim_app
from tokenpilot.hardware import get_gpu
from tokenpilot.policy.admission import predicted_ttft_s
from tokenpilot.workload.request import Request

GPU, MODEL = "a100-80gb", "llama-3.1-8b"


def _slow_profile(path):
    fam = calibration_for(get_gpu(GPU).family)
    write_profile(path, Profile(replace(fam, flops_eff=fam.flops_eff / 4,
                                        step_overhead_s=0.05), GPU, MODEL))
    return path


def _load(tmp_path, backend: dict) -> GatewayConfig:
    f = tmp_path / "gateway.yaml"
    f.write_text(yaml.safe_dump({"backends": [{"url": "http://127.0.0.1:9", "gpu": GPU,
                                               "model": MODEL, **backend}]}))
    return GatewayConfig.load(f)


def test_calibration_relative_to_the_file_slows_the_view_and_the_ttft_prediction(tmp_path):
    (tmp_path / "profiles").mkdir()
    _slow_profile(tmp_path / "profiles" / "slow.yaml")
    plain = Backend(_load(tmp_path, {}).backends[0], 0)
    cfg = _load(tmp_path, {"calibration": "profiles/slow.yaml"}).backends[0]
    assert cfg.calibration == str(tmp_path / "profiles" / "slow.yaml")
    fitted = Backend(cfg, 0)
    assert fitted.cm is not None and fitted.cm.cal.step_overhead_s == 0.05
    assert fitted.prefill_tps < plain.prefill_tps / 2
    req = Request(0, 0.0, 2000, 50)
    assert predicted_ttft_s(req, fitted.view(0, True)) > 2 * predicted_ttft_s(
        req, plain.view(0, True))


def test_gateway_over_sims_carries_their_engine_and_tp() -> None:
    """gateway/fleet.py's config names each simulated backend's engine profile and tp."""
    sim = create_sim_app(SimConfig(gpu=GPU, model=MODEL, engine="vllm-v0", tp=2, name="s"))
    cfg = gateway_config([SimpleNamespace(url="http://127.0.0.1:9", app=sim)])
    b = cfg.backends[0]
    assert (b.engine, b.tp) == ("vllm-v0", 2)
    assert Backend(b, 0).cm.tp == 2


@pytest.mark.parametrize("backend, message", [
    ({"engine": "tgi"}, "engine"),
    ({"calibration": "missing.yaml"}, "missing.yaml"),
])
def test_bad_engine_or_profile_is_a_config_error(tmp_path, backend, message):
    with pytest.raises(ConfigError, match=message) as exc:
        _load(tmp_path, backend)
    assert "\n" not in str(exc.value)
