"""``gateway.state`` without a server: its config, its one-line errors, the fail-open share, the
wire format, and how the fleet's VTC service reaches the local fair queue. The real Redis and
three real replicas are in test_gateway_replicas.py (e2e)."""

from __future__ import annotations

import pytest
import yaml
from builders import cli

from tokenpilot.config_section import from_mapping
from tokenpilot.gateway.config import ConfigError, GatewayConfig, StateConfig
from tokenpilot.gateway.state import LocalShare, RedisState, pack
from tokenpilot.policy.admission import Admission, AdmissionConfig
from tokenpilot.policy.buckets import BucketLimits
from tokenpilot.policy.disciplines import VTC


def gateway(**state) -> GatewayConfig:
    return from_mapping(GatewayConfig, {"backends": ["http://127.0.0.1:9"], "state": state},
                        "gw.yaml", ConfigError)


def test_memory_is_the_default_and_bad_state_keys_say_what_to_fix() -> None:
    assert GatewayConfig().state.store == "memory"
    assert gateway(store="redis", url="unix:///run/redis.sock").state.store == "redis"
    with pytest.raises(ConfigError, match="not a redis://, rediss:// or unix:// URL"):
        gateway(store="redis", url="http://127.0.0.1:6379")
    with pytest.raises(ConfigError, match="at least two heartbeats"):
        gateway(store="redis", heartbeat_ms=1000, ttl_s=1.5)
    with pytest.raises(ConfigError, match="on_failure"):
        gateway(store="redis", on_failure="maybe")


def test_serve_with_redis_unreachable_is_one_line(tmp_path) -> None:
    cfg = tmp_path / "gw.yaml"
    cfg.write_text(yaml.safe_dump({"backends": ["http://127.0.0.1:9"], "state": {
        "store": "redis", "url": f"unix://{tmp_path}/no-redis.sock", "timeout_s": 0.5}}))
    r = cli("serve", "--config", str(cfg), "--port", "0")
    assert r.exit_code != 0
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in r.output, err
    assert "does not answer" in err and "state.store: memory" in err, err


def test_fail_open_share_is_the_limit_over_the_live_replicas() -> None:
    share = LocalShare()
    share.replicas = 3
    lim = BucketLimits(tokens_per_minute=3000)
    took = [share.take("t", 400, lim, 0.0).ok for _ in range(3)]
    assert took == [True, True, False]  # 1000 tokens a minute here: two of 400 fit, not three
    share.settle("t", 400, 400, lim, 0.0)
    assert share.store.inflight("t") == 400
    capped = BucketLimits(None, 900)
    assert share.take("u", 250, capped, 0.0).ok
    assert not share.take("u", 100, capped, 0.0).ok  # 250 + 100 > 900 / 3


def test_commands_are_resp_arrays() -> None:
    assert pack("EVALSHA", "ab", 1, "k") == (
        b"*4\r\n$7\r\nEVALSHA\r\n$2\r\nab\r\n$1\r\n1\r\n$1\r\nk\r\n")


def test_the_fleets_vtc_service_is_added_to_the_local_counters() -> None:
    vtc = VTC(weights={"a": 2.0})
    st = RedisState(StateConfig(store="redis", url="unix:///nowhere.sock"),
                    Admission(AdmissionConfig()), [], vtc, ["a", "b"])
    vtc._charge("a", 10.0)  # this replica served a 10 weighted tokens
    st._vtc_pushed["a"] = 10.0  # ... and its heartbeat sent them
    # The fleet's totals: a 10 + 30 by the others, b 8 by the others.
    st._apply_vtc(vtc, [b"a", b"40", b"b", b"8"])
    assert vtc.counters == {"a": pytest.approx((10 + 30) / 2), "b": pytest.approx(8)}
    st._apply_vtc(vtc, [b"a", b"40", b"b", b"8"])  # nothing new: nothing added twice
    assert vtc.counters == {"a": pytest.approx(20), "b": pytest.approx(8)}
    st._apply_vtc(vtc, [b"a", b"10"])  # the store restarted empty: count from here on
    assert vtc.counters["a"] == pytest.approx(20)
