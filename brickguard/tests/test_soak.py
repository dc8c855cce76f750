"""brickguard soak: real compilations with arm-none-eabi-gcc, real emulation in unicorn."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from brickguard import toolchain
from brickguard.config import Config, config_from_dict
from brickguard.errors import BrickguardError, ConfigError
from brickguard.soak.build import RAM_BASE

pytest.importorskip("unicorn", reason="soak needs unicorn (pip install unicorn)")
pytestmark = pytest.mark.skipif(toolchain.find_gcc() is None,
                                reason=f"no arm-none-eabi-gcc: {toolchain.INSTALL_HINT}")

HERE = Path(__file__).parent
SOAK = HERE / "soak"
EXAMPLE = HERE.parent / "examples" / "i2c_slave"


def _config(**soak) -> Config:
    table = {"interrupts": [{"handler": "TIM2_IRQHandler"}], **soak}
    return config_from_dict({"soak": table}, root=SOAK)


def _soak(scenario: str, files=("counter.c",), **soak):
    from brickguard.soak.build import build
    from brickguard.soak.explore import Explorer

    config = _config(scenario=scenario, **soak)
    assert config.soak is not None
    image = build([SOAK / f for f in files], config, config.soak)
    return image, Explorer(image, config.soak).explore()


def _kinds(result) -> list[str]:
    return sorted({f.kind for r in result.handlers for f in r.failures})


def test_lost_update_is_found_with_a_witness_at_the_read_modify_write():
    from brickguard.soak.witness import findings

    image, result = _soak("bump")
    (r,) = result.handlers
    assert r.complete and r.explored == r.planned > 2
    assert _kinds(result) == ["not serializable"]
    ((witness, finding),) = findings(result, "brickguard soak x")
    assert "count" in witness.objects
    lines = {image.line_at(f.pc)[1] for f in witness.runs}
    bump_line = next(n for n, text in enumerate((SOAK / "counter.c").read_text().splitlines(), 1)
                     if "count = count + 1u; /* read-modify-write" in text)
    assert lines == {bump_line}
    assert finding.flow and finding.location.line == bump_line
    assert witness.replay.endswith(f"--replay TIM2_IRQHandler@{witness.failure.boundary}")


@pytest.mark.parametrize("scenario", ["bump_masked", "bump_vendor_locked"])
def test_primask_masks_the_injection_and_nothing_breaks(scenario):
    image, result = _soak(scenario)
    (r,) = result.handlers
    assert r.failures == [] and r.complete
    assert r.masked > 0
    if scenario == "bump_vendor_locked":  # a profile's critical-section pair, not linked
        assert {"DisableGlobalIRQ", "EnableGlobalIRQ"} <= set(image.stubbed)


@pytest.mark.parametrize(("setup", "fails"), [("nvic_low", False), ("nvic_urgent", True)])
def test_basepri_masks_only_less_urgent_priorities(setup, fails):
    _, result = _soak("bump_basepri", setup=[setup],
                      interrupts=[{"handler": "TIM2_IRQHandler", "irq": 28}])
    assert bool(result.handlers[0].failures) is fails


@pytest.mark.parametrize(("scenario_priority", "handler", "setup", "fails"), [
    (None, {}, [], False),  # both at reset priority 0: equal ones never nest
    (0x50, {"priority": 0x10}, [], True),  # a more urgent handler preempts
    (0x10, {"priority": 0x50}, [], False),  # a less urgent one waits
    (0x40, {"irq": 28}, ["nvic_urgent"], True),  # the code's NVIC priority 0x20 < 0x40
    (0x20, {"irq": 28}, ["nvic_urgent"], False),  # 0x20 against 0x20: equal
    (0x40, {"irq": 28}, ["coarse_groups"], False),  # one group once PRIGROUP = 6
])
def test_a_handler_preempts_a_handler_scenario_only_when_more_urgent(
        scenario_priority, handler, setup, fails):
    soak = {"priority": scenario_priority} if scenario_priority is not None else {}
    _, result = _soak("USART1_IRQHandler", setup=setup,
                      interrupts=[{"handler": "TIM2_IRQHandler", **handler}], **soak)
    (r,) = result.handlers
    assert bool(r.failures) is fails
    if not fails and not setup:
        assert "never preempts USART1_IRQHandler" in r.note


@pytest.mark.parametrize(("cpu", "split"), [("cortex-m4", True), ("cortex-m0", False)])
def test_an_ldm_is_split_between_its_loads_on_v7m_only(cpu, split):
    image, result = _soak("copy_pair", cpu=cpu, interrupts=[{"handler": "PAIR_IRQHandler"}])
    (r,) = result.handlers
    ldm = [a for a, text in image.disasm.items() if text.startswith("ldm")
           and image.function_at(a) == "copy_pair"]
    torn = [f for f in r.failures if f.part]
    if split:  # v7-M continues an interrupted LDM (EPSR.ICI): the copy can tear
        assert ldm and r.splits > 0 and torn
        assert all(f.pc in ldm and f.at == f"{f.boundary}.{f.part}" for f in torn)
        assert {f.kind for f in torn} == {"not serializable"}
    else:  # v6-M abandons and restarts it: no run lands inside
        assert r.splits == 0 and not torn


def test_a_handler_gated_by_a_start_call_fires_only_after_it():
    image, gated = _soak("bump_then_start", interrupts=[{"handler": "TIM2_IRQHandler",
                                                          "after": ["start_it"]}])
    start = image.symbols["start_it"].addr
    (r,) = gated.handlers
    assert r.masked > 0
    assert all(image.line_at(f.pc) != image.line_at(start) for f in r.failures)
    first_line = next(n for n, text in enumerate((SOAK / "counter.c").read_text().splitlines(), 1)
                      if "before the start: the gated handler" in text)
    assert all(image.line_at(f.pc)[1] != first_line for f in r.failures)
    _, free = _soak("bump_then_start")
    assert any(image.line_at(f.pc)[1] == first_line for f in free.handlers[0].failures)


@pytest.mark.parametrize("waits", [0, 1])
def test_waits_take_the_handler_where_the_run_spins_and_explore_past_it(waits):
    image, result = _soak("wait_then_bump", bounded=True, budget=3000, waits=waits,
                          interrupts=[{"handler": "FLAG_IRQHandler"}])
    line = next(n for n, text in enumerate((SOAK / "counter.c").read_text().splitlines(), 1)
                if "/* after the wait */" in text)
    landed = {image.line_at(f.pc)[1] for r in result.handlers for f in r.failures}
    assert len(result.waited) == waits
    assert (line in landed) is bool(waits)
    if waits:
        assert result.waited[0].startswith("FLAG_IRQHandler at ") and "counter.c:" in (
            result.waited[0])


def test_an_irq_never_enabled_in_the_nvic_is_never_injected():
    _, result = _soak("bump", interrupts=[{"handler": "TIM2_IRQHandler", "irq": 28}])
    (r,) = result.handlers
    assert r.failures == [] and r.masked > 0
    assert r.explored == 2  # only the two serial references: the handler before and after


def test_a_c_check_and_an_assertion_are_oracles():
    _, result = _soak("bump", checks=["count_matches"])
    assert "check" in _kinds(result)
    broken = {b for r in result.handlers for f in r.failures for b in f.outcome.broken}
    assert broken == {"count_matches() returned 1"}
    _, result = _soak("assert_stable")
    messages = {b for r in result.handlers for f in r.failures for b in f.outcome.broken}
    assert len(messages) == 1 and messages.pop().startswith("BG_SOAK_ASSERT(count == first)")


def test_a_handler_that_waits_for_the_scenario_is_a_lock_up():
    _, result = _soak("handshake", interrupts=[{"handler": "SPI1_IRQHandler"}],
                      handler_budget=500)
    assert "lock-up" in _kinds(result)


def test_undefined_functions_are_stubbed_and_scripted_reads_drive_branches():
    image, result = _soak("stubbed", reads=[{"address": 0x40000010, "set": 0x80}])
    assert set(image.stubbed) == {"stub_value", "DisableGlobalIRQ", "EnableGlobalIRQ"}
    assert _kinds(result) == ["not serializable"]
    _, quiet = _soak("stubbed")  # STATUS reads 0: the increment is never reached
    assert quiet.handlers[0].failures == []


def test_cortex_m0_build_finds_the_same_race():
    image, result = _soak("bump", cpu="cortex-m0")
    assert image.cpu == "cortex-m0" and _kinds(result) == ["not serializable"]


def test_clear_errors_for_faults_and_code_that_does_not_compile():
    with pytest.raises(BrickguardError, match=r"faults without any interrupt"):
        _soak("faulting")
    with pytest.raises(BrickguardError, match=r"broken\.c does not compile for cortex-m4"):
        _soak("broken", files=("broken.c",))
    with pytest.raises(ConfigError, match=r"\[soak\] window: must be 0 to 1000"):
        _config(window=-1)


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "brickguard.cli", *args], capture_output=True,
                          text=True, env=env, cwd=HERE.parent)


def test_cli_without_the_cross_compiler_says_what_to_install(tmp_path):
    env = {**os.environ, "PATH": str(tmp_path)}
    proc = _cli("soak", str(EXAMPLE / "buggy"), "--config", str(EXAMPLE / "brickguard.toml"),
                env=env)
    assert proc.returncode == 2
    assert toolchain.INSTALL_HINT in proc.stderr and "Traceback" not in proc.stderr


def test_i2c_example_buggy_has_a_witness_that_replays_and_fixed_explores_clean():
    cfg = str(EXAMPLE / "brickguard.toml")
    buggy = _cli("soak", str(EXAMPLE / "buggy"), "--config", cfg)
    assert buggy.returncode == 1, buggy.stderr
    assert "not serializable" in buggy.stdout and "buggy/main.c:2" in buggy.stdout
    assert "interleavings explored" in buggy.stderr  # progress on stderr
    replay = next(line.split("replay: ", 1)[1] for line in buggy.stdout.splitlines()
                  if "replay: " in line)
    args = replay.split()[1:]  # drop "brickguard"
    again = _cli(*args)
    assert again.returncode == 1 and "not serializable" in again.stdout
    first = next(line for line in buggy.stdout.splitlines() if "taken before" in line)
    assert first in again.stdout  # the same landing instruction, the same verdict
    fixed = _cli("soak", str(EXAMPLE / "fixed"), "--config", cfg, "-q")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "0 failing" in fixed.stdout and "boundaries masked" in fixed.stdout


def test_confirm_marks_a_real_lost_update_confirmed_and_an_unsplittable_read_refuted():
    from brickguard.analyze import analyze
    from brickguard.soak.confirm import apply, confirm

    config = Config(root=SOAK)
    findings = analyze([SOAK / "torn.c"], config).findings
    verdicts = {f.rule: v for f, v in confirm(findings, [SOAK / "torn.c"], config)}
    assert set(verdicts) == {"BG102", "BG103"}
    assert verdicts["BG102"].status == "confirmed"
    assert "--scenario bump --handler SysTick_Handler --replay SysTick_Handler@" in (
        verdicts["BG102"].replay)
    assert verdicts["BG103"].status == "refuted" and "ldrd" in verdicts["BG103"].reason
    changed = {f.rule: f for f in apply(findings, list(confirm(findings, [SOAK / "torn.c"],
                                                               config)))}
    assert changed["BG102"].level.value == "error" and changed["BG102"].flow
    assert changed["BG103"].related[-1].message.startswith("soak: refuted")


def test_check_confirm_on_the_i2c_example_confirms_the_copy_race():
    proc = _cli("check", str(EXAMPLE / "buggy"), "--confirm")
    assert proc.returncode == 1
    assert "soak --confirm: 2 confirmed" in proc.stderr
    confirmed = [line for line in proc.stdout.splitlines() if "soak: confirmed" in line]
    assert len(confirmed) == 2 and all("--replay I2C1_EV_IRQHandler@" in c for c in confirmed)


def test_sarif_carries_the_witness_as_a_code_flow_and_json_the_replay(tmp_path):
    import json

    args = ("soak", str(SOAK / "counter.c"), "--scenario", "bump", "--handler",
            "TIM2_IRQHandler", "-q")
    out = tmp_path / "soak.sarif"
    proc = _cli(*args, "--format", "sarif", "--output", str(out))
    assert proc.returncode == 1, proc.stderr
    (result,) = json.loads(out.read_text())["runs"][0]["results"]
    assert result["ruleId"] == "BG190" and result["level"] == "error"
    steps = result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert any("TIM2_IRQHandler is taken here" in s["location"]["message"]["text"] for s in steps)
    data = json.loads(_cli(*args, "--format", "json").stdout)
    (handler,) = data["handlers"]
    assert handler["complete"] and handler["failing_runs"] >= 1
    assert handler["witnesses"][0]["replay"].endswith(
        f"--replay TIM2_IRQHandler@{handler['witnesses'][0]['boundary']}")


@pytest.mark.parametrize("cpu", ["cortex-m4", "cortex-m0"])
def test_an_interrupt_inside_conditional_code_returns_to_the_same_computation(cpu):
    image, result = _soak("choose", cpu=cpu, window=1000,
                          interrupts=[{"handler": "OTHER_IRQHandler"}])
    (r,) = result.handlers
    it_blocks = [a for a, text in image.disasm.items() if text.startswith("it")]
    assert r.complete and r.explored > 30
    # v7-M code has IT blocks: the boundaries inside them are skipped (and counted), since a
    # snapshot there would resume with the wrong condition state.
    assert (cpu == "cortex-m0" and r.it_skipped == 0) or (it_blocks and r.it_skipped > 0)

    def picked_if_seen_from(j: int) -> int:  # the handler's increment seen from pass j on
        picked = 0
        for i in range(6):
            seen = 1 if i >= j else 0
            picked = (picked + seen + 3) if i & 1 else picked ^ (seen + 5)
        return picked & 0xFFFFFFFF

    possible = {picked_if_seen_from(j) for j in range(7)}
    offset = image.symbols["picked"].addr - RAM_BASE
    finals = {int.from_bytes(f.outcome.final[offset:offset + 4], "little") for f in r.failures}
    assert r.failures and finals <= possible  # a wrong resumption would compute something else


CASES = HERE / "cases"


def _confirm(path: Path) -> dict[int, object]:
    from brickguard.analyze import analyze
    from brickguard.soak.confirm import confirm

    config = Config(root=path.parent, include=[CASES / "include"])
    result = analyze([path], config)
    return {f.location.line: v for f, v in confirm(result.findings, [path], config,
                                                   interrupts=result.interrupts)}


def _line(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def _variant(tmp_path: Path, case: str, old: str, new: str) -> Path:
    """A fixture case with one change: what its `soak: no race here` mark says is missing."""
    text = (CASES / case).read_text()
    assert old in text
    out = tmp_path / Path(case).name
    out.write_text(text.replace(old, new, 1))
    return out


def test_confirm_injects_the_vector_that_reaches_a_hal_handler_with_a_parameter(tmp_path):
    # bg101/handler_disables_family.c with its handle on registers, ERR enabled (soak starts a
    # handler scenario from reset, not where main leaves CR2), and a transfer under way. The
    # findings' contexts are HAL_I2C_ER_IRQHandler (it takes the handle) and its vector; the
    # scenario's lines are in HAL_I2C_EV_IRQHandler(h), inlined into its vector.
    path = _variant(tmp_path, "bg101/handler_disables_family.c", "I2C_HandleTypeDef hi2c;",
                    "I2C_TypeDef regs = {3u}; I2C_HandleTypeDef hi2c = {&regs, 0u, 0u, 5u};")
    verdicts = _confirm(path)
    for text in ("h->State = READY;            /* expect", "h->XferCount--;"):
        v = verdicts[_line(path, text)]
        assert v.status == "confirmed", v.reason
        assert "--scenario I2C1_EV_IRQHandler --handler I2C1_ER_IRQHandler --replay" in v.replay
        assert "HAL_I2C_EV_IRQHandler() takes parameters: run in I2C1_EV_IRQHandler()" in v.reason
        assert "I2C1_ER_IRQHandler injected, not HAL_I2C_ER_IRQHandler()" in v.reason


def test_confirm_runs_a_function_with_parameters_where_inlined_and_a_scenario_twice():
    path = SOAK / "modes.c"
    verdicts = _confirm(path)
    inlined = verdicts[_line(path, "heater_ctrl | mode;")]
    assert inlined.status == "confirmed", inlined.reason
    assert "--scenario main" in inlined.replay and "set_mode() takes parameters" in inlined.reason
    # set_heat() from reset clears a mode that is not set: only its second call breaks.
    twice = verdicts[_line(path, "heater_ctrl | 2u;")]
    assert twice.status == "confirmed", twice.reason
    assert "in call 2 of the scenario" in twice.reason
    assert "--scenario set_heat" in twice.replay and "--repeat 2" in twice.replay
    replayed = _cli(*twice.replay.split()[1:])
    assert replayed.returncode == 1 and "not serializable" in replayed.stdout, replayed.stderr


def test_confirm_takes_the_handler_footprint_from_where_the_scenario_runs():
    # The handler's element depends on id_reg, which main sets: from reset it is pairs[1].
    path = SOAK / "stride.c"
    v = _confirm(path)[_line(path, "pairs[4u * id + 3u]++;")]
    assert v.status == "confirmed", v.reason


def test_the_bitfield_store_is_confirmed_once_no_later_line_clears_what_it_loses(tmp_path):
    path = _variant(tmp_path, "bg102/bitfields.c", "    st.rx_ready = 0;", "    ")
    v = _confirm(path)[_line(path, "st.tx_busy = 1;")]
    assert v.status == "confirmed", v.reason
    assert _confirm(CASES / "bg102/bitfields.c")[_line(path, "st.tx_busy = 1;")].status != (
        "confirmed")


@pytest.mark.parametrize(("case", "text", "taken"), [
    # Zephyr's irq_lock() on v7-M raises BASEPRI; IRQ_ZERO_LATENCY handlers run at priority 0,
    # above it (a PRIMASK stand-in masked them: the race was refuted).
    ("bg101/zero_latency.c", "rx_bytes = 0u;", "on_uart taken before"),
    # err_put() is inlined into TIM2 (level 1) and USART1 (level 3, BASEPRI 0x60 around it):
    # the finding is USART1's access, so USART1 is the scenario and TIM2 the injected handler,
    # not USART1 injected into TIM2 (less urgent: it never preempts).
    ("bg101/handler_basepri.c", "err_idx = i + 1u;", "TIM2_IRQHandler taken before"),
])
def test_confirm_masks_as_the_platform_does_and_runs_the_findings_side(case, text, taken):
    path = CASES / case
    v = _confirm(path)[_line(path, text)]
    assert v.status == "confirmed", v.reason
    assert taken in v.reason


def test_ti_driverlib_register_byte_priorities_let_the_more_urgent_handler_preempt():
    # Interrupt_setPriority(INT_T32_INT1, 0x20) writes the NVIC byte (level 1): T32 preempts
    # PORT1 at 0x40. As stubs returning 0 both stayed at 0, equal, and the race was refuted.
    path = CASES / "bg101/register_priority/main.c"
    verdicts = _confirm(path)
    for text in ("edges++;  /* expect", "ticks = 0u;  /* expect"):
        v = verdicts[_line(path, text)]
        assert v.status == "confirmed", v.reason
        assert "T32_INT1_IRQHandler taken before" in v.reason


def test_a_main_loop_that_only_reads_is_no_wait_and_its_torn_reads_are_judged():
    # main reads stamp twice per round and writes no shared memory: the handler taken at the
    # budget's end leaves it going round the same loop, so it waits for nothing; a handler
    # between the two reads is a race (taken for a wait, every run was passed).
    path = CASES / "bg101/retry_read.c"
    v = _confirm(path)[_line(path, "uint32_t b = stamp;")]
    assert v.status == "confirmed", v.reason
    # The same loop reading other words: a handler between two rounds changes `dropped`,
    # not `handle`, which no code makes non-zero: no witness for the finding on `handle`.
    other = CASES / "bg101/test_then_use.c"
    assert _confirm(other)[_line(other, "log_u32(handle);")].status == "refuted"


def test_a_torn_pair_is_confirmed_from_the_seeded_state_where_the_low_word_wraps():
    # two_words.c: the handler carries into `hi` only when `lo` wraps: from the zero state that
    # takes 2^32 interrupts. The seeded state sets each counter one step before it wraps.
    path = CASES / "bg101/two_words.c"
    v = _confirm(path)[_line(path, "b = lo;")]
    assert v.status == "confirmed", v.reason
    assert "from the seeded state: lo = 0xffffffff" in v.reason
    assert "--seed wrap" in v.replay and "--rounds" in v.replay


def test_the_seed_sets_only_what_a_handler_counts():
    from brickguard.soak.build import build
    from brickguard.soak.explore import Explorer

    path = CASES / "bg101/two_words.c"
    config = config_from_dict({"build": {"include": [str(CASES / "include")]},
                               "soak": {"scenario": "main", "bounded": True, "budget": 2000,
                                        "seed": "wrap",
                                        "interrupts": [{"handler": "TIM2_IRQHandler"}]}},
                              root=path.parent)
    image = build([path], config, config.soak)
    explorer = Explorer(image, config.soak, config)
    seeded = {s.split(" = ")[0] for s in explorer.seeded}
    # lo, lo2, rx, tx step by 1 each run; hi only on a carry; ready goes 0 -> 1 -> 1.
    assert seeded == {"lo", "lo2", "rx", "tx"}
    lo = image.symbols["lo"].addr
    assert int.from_bytes(explorer.s0.ram[lo - RAM_BASE:lo - RAM_BASE + 4], "little") == (
        0xFFFFFFFF)


def test_a_path_behind_an_undefined_call_is_explored_with_stubs_returning_non_zero():
    # pointer_either.c: main bumps a.rx only when the undefined read_sensor() returns non-zero.
    path = CASES / "bg101/pointer_either.c"
    v = _confirm(path)[_line(path, "*p = *p + 1u;")]
    assert v.status == "confirmed", v.reason
    assert "stubs of undefined calls returning 1 (read_sensor)" in v.reason
    assert "--stub-return 1" in v.replay


def _soak_case(case: str, scenario: str, handlers: list[str]):
    """A fixture case's function soaked whole with the handlers as --confirm injects them."""
    from brickguard.cli_check import run_analysis
    from brickguard.soak.build import build
    from brickguard.soak.confirm import _spec
    from brickguard.soak.explore import Explorer
    from brickguard.soak.settings import SoakTable

    path = CASES / case
    config = Config(root=path.parent, include=[CASES / "include"])
    report = run_analysis([path], config)
    probe = build([path], config, SoakTable(scenario="main", interrupts=[]))
    table = SoakTable(scenario=scenario, bounded=True, budget=20000, interrupts=[
        _spec(probe, h, report.interrupts.get(h)) for h in handlers])
    image = build([path], config, table)
    return path, image, Explorer(image, table, config).explore()


def test_a_vendor_line_mask_masks_the_callback_of_that_line():
    # vendor_harmony.c: on_read is the callback USART1_ReadCallbackRegister takes: the static
    # model gives it USART1's line, and SYS_INT_SourceDisable(USART1_IRQn) masks it there.
    path, image, result = _soak_case("bg102/vendor_harmony.c", "main", ["on_read"])
    (r,) = result.handlers
    assert r.spec.irq == 14 and r.masked > 0
    lines = {image.line_at(f.pc)[1] for f in r.failures}
    assert lines == {_line(path, "reads--;                         /* expect")}


def test_a_zephyr_isr_is_masked_by_irq_lock_unless_zero_latency():
    path, image, result = _soak_case("bg102/vendor_zephyr.c", "main", ["uart_cb"])
    (r,) = result.handlers
    assert r.spec.priority == 0x40
    assert {image.line_at(f.pc)[1] for f in r.failures} == {
        _line(path, "rx_chars--;                      /* expect")}
    zero = CASES / "bg101/zero_latency.c"
    v = _confirm(zero)[_line(zero, "rx_bytes = 0u;")]
    assert v.status == "confirmed" and "on_uart taken before" in v.reason


def test_nvic_set_priority_stand_in_honours_the_device_priority_bits(tmp_path):
    from brickguard.soak.build import build
    from brickguard.soak.explore import Explorer

    src = tmp_path / "bits.c"
    src.write_text("#include <stdint.h>\n#define __NVIC_PRIO_BITS 3U\n"
                   "typedef enum { TIM2_IRQn = 28 } IRQn_Type;\n"
                   "void NVIC_SetPriority(IRQn_Type irq, uint32_t priority);\n"
                   "volatile uint32_t n;\nvoid TIM2_IRQHandler(void) { n++; }\n"
                   "void init(void) { NVIC_SetPriority(TIM2_IRQn, 1u); }\n"
                   "void poll(void) { n = n + 1u; }\n")
    config = config_from_dict({"soak": {"scenario": "poll", "setup": ["init"], "interrupts": [
        {"handler": "TIM2_IRQHandler", "irq": 28, "enabled": True}]}}, root=tmp_path)
    image = build([src], config, config.soak)
    assert image.prio_bits == 3
    explorer = Explorer(image, config.soak, config)
    assert explorer.s0.periph.get(0xE000E400 + 28) == 0x20  # level 1 in the top 3 bits


def test_cli_seed_names_what_it_set_and_a_bad_seed_is_one_line():
    args = ("soak", str(SOAK / "counter.c"), "--scenario", "bump", "--handler",
            "TIM2_IRQHandler", "-q")
    proc = _cli(*args, "--seed", "wrap")
    assert "seeded state: count = 0xffffffff (TIM2_IRQHandler steps it by +1" in proc.stdout, (
        proc.stdout + proc.stderr)
    assert "--seed wrap --replay TIM2_IRQHandler@" in proc.stdout
    bad = _cli(*args, "--seed", "max")
    assert bad.returncode != 0 and "--seed 'max': use one of" in bad.stderr
    assert "Traceback" not in bad.stderr


@pytest.mark.parametrize(("seed", "torn"), [("", False), ("wrap", True)])
def test_a_64_bit_count_read_as_two_words_on_m0_tears_only_at_a_carry(seed, torn):
    _, result = _soak("now", files=("torn.c",), cpu="cortex-m0", seed=seed,
                      interrupts=[{"handler": "SysTick_Handler"}])
    (r,) = result.handlers
    assert r.complete and bool(r.failures) is torn
    assert any(s.startswith("ticks = 0xffffffffffffffff") for s in result.seeded) is torn
    # A 64-bit object is one memory location: its torn read is that location's failure.
    assert all(f.oracle == "location" and f.locations == ["ticks"] for f in r.failures)


def test_dwarf_gives_each_memory_location_a_scalar_an_element_a_bitfield_run():
    from brickguard.soak.build import build

    config = _config(scenario="two_stores")
    assert config.soak is not None
    image = build([SOAK / "locations.c"], config, config.soak)
    fl, buf, stamp = (image.symbols[n].addr for n in ("fl", "buf", "stamp"))
    assert image.location_of(fl)[2] == "fl.rx/tx"  # adjacent bit-fields: one location
    names = {image.location_of(x)[2] for x in range(fl, fl + image.symbols["fl"].size)}
    assert {"fl.rx/tx", "fl.err", "fl.mode"} <= names  # the zero-width one parts them
    assert image.location_of(buf + 2) == (buf + 2, buf + 3, "buf[2]")
    assert image.location_of(stamp + 5) == (stamp, stamp + 8, "stamp")  # 64 bits: one


@pytest.mark.parametrize(("scenario", "oracle", "locations"), [
    ("two_stores", "joint", {"a (as with the handler after)", "b (as with the handler before)"}),
    ("read_twice", "location", {"buf[1]"}),
])
def test_each_failure_is_attributed_to_a_location_or_to_the_combination(
        scenario, oracle, locations):
    from brickguard.soak.witness import findings

    _, result = _soak(scenario, files=("locations.c",))
    (r,) = result.handlers
    assert r.failures and {f.oracle for f in r.failures} == {oracle}
    assert all(set(f.locations) == locations for f in r.failures)
    ((witness, finding),) = findings(result, "brickguard soak x")
    assert f"({oracle}: " in witness.lines[0]
    assert finding.level.value == ("warning" if oracle == "joint" else "error")


@pytest.mark.parametrize(("oracle", "code"), [(None, 0), ("scenario", 1), ("whole", 2)])
def test_a_joint_failure_is_reported_and_gates_only_under_the_scenario_oracle(oracle, code):
    args = ["soak", str(SOAK / "locations.c"), "--scenario", "two_stores", "--handler",
            "TIM2_IRQHandler", "-q", *(["--oracle", oracle] if oracle else [])]
    proc = _cli(*args)
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    if code != 2:
        assert "(joint: a (as with the handler after), b (as with the handler before))" in (
            proc.stdout)


@pytest.mark.parametrize(("case", "text", "urgent", "scenario"), [
    # nvic_irq_enable(irq, pre, sub): USART1 at pre-emption 1 over TIM2 at 2.
    ("bg102/param_priorities.c", "budget = budget + 8u;", "USART1_IRQHandler", "TIM2_IRQHandler"),
    # A configuration struct's priority field: TIM2 at 1 over USART1 at 5.
    ("bg102/config_struct_priorities.c", "events--;", "TIM2_IRQHandler", "USART1_IRQHandler"),
    # A registration's number links the handler to up_prioritize_irq's byte: PWM over ADC.
    ("bg102/registered_line_priority.c", "duty += 4u;", "pwm_isr", "adc_isr"),
])
def test_confirm_injects_handlers_at_the_static_models_priority_levels(case, text, urgent,
                                                                       scenario):
    # Priorities set by calls no stand-in models (the static model reads them: Context.level)
    # are given to the emulated NVIC: the more urgent handler preempts the other. Without the
    # levels both are at reset priority 0 and equal ones never nest; with them reversed the
    # injected one is the less urgent: refuted either way.
    from dataclasses import replace

    from brickguard.analyze import analyze
    from brickguard.soak.confirm import confirm

    path = CASES / case
    config = Config(root=path.parent, include=[CASES / "include"])
    result = analyze([path], config)
    line = _line(path, text)
    levels = {n: c.level for n, c in result.interrupts.items()}
    assert levels[urgent] is not None and levels[scenario] is not None
    assert levels[urgent] < levels[scenario]

    def verdict(interrupts):
        return {f.location.line: v for f, v in confirm(result.findings, [path], config,
                                                       interrupts=interrupts)}[line]

    v = verdict(result.interrupts)
    assert v.status == "confirmed", v.reason
    assert f"{urgent} taken before" in v.reason and f"in {scenario}" in v.reason
    plain = {n: replace(c, level=None) for n, c in result.interrupts.items()}
    assert verdict(plain).status == "refuted"
    swapped = dict(result.interrupts)
    swapped[urgent] = replace(swapped[urgent], level=levels[scenario] + 1)
    assert verdict(swapped).status == "refuted"


def test_a_third_call_of_the_scenario_reaches_the_state_where_the_handler_changes_the_value():
    # pwm_isr's duty -= duty / 8 leaves 0 and 4 (the states calls 1 and 2 of adc_isr start
    # from) as they are, so no interleaving differs there; call 3 starts from 8.
    path = CASES / "bg102/registered_line_priority.c"
    v = _confirm(path)[_line(path, "duty += 4u;")]
    assert v.status == "confirmed", v.reason
    assert "in call 3 of the scenario" in v.reason and "--repeat 3" in v.replay


@pytest.mark.parametrize("waiter", [False, True])
def test_a_wait_handler_ends_the_wait_it_alone_ends_and_is_never_explored(waiter):
    # wait_then_bump waits for `flag`, which only FLAG_IRQHandler sets; TIM2 is the handler
    # explored. As a wait handler (explore = false) FLAG is taken there and the run goes on
    # to the lost update after the wait; without it TIM2 is taken, the wait goes on, and the
    # line after it is never reached.
    interrupts = [{"handler": "TIM2_IRQHandler"}] + (
        [{"handler": "FLAG_IRQHandler", "explore": False}] if waiter else [])
    image, result = _soak("wait_then_bump", bounded=True, budget=3000, waits=1,
                          interrupts=interrupts)
    line = _line(SOAK / "counter.c", "/* after the wait */")
    assert [r.spec.handler for r in result.handlers] == ["TIM2_IRQHandler"]
    landed = {image.line_at(f.pc)[1] for r in result.handlers for f in r.failures}
    assert result.waited[0].startswith("FLAG_IRQHandler at" if waiter else "TIM2_IRQHandler at")
    assert (line in landed) is waiter


def test_confirm_takes_another_handler_where_only_it_ends_the_wait(tmp_path):
    # change_test.c: main spins on `ticks == seen` (only TIM2 counts ticks) before the lines
    # racing with TIM3; TIM2, a context the finding does not name, is a wait handler. (Copied
    # beside its header: the replay command names no include path.)
    path = _variant(tmp_path, "bg101/change_test.c", "", "")
    (tmp_path / "cmsis_stub.h").write_text((CASES / "include/cmsis_stub.h").read_text())
    v = _confirm(path)[_line(path, "seen_laps = laps;")]
    assert v.status == "confirmed", v.reason
    assert "after TIM2_IRQHandler at" in v.reason and "TIM3_IRQHandler taken before" in v.reason
    assert "--handler TIM3_IRQHandler" in v.replay and "--wait-handler TIM2_IRQHandler" in (
        v.replay)
    replayed = _cli(*v.replay.split()[1:])
    assert replayed.returncode == 1 and "not serializable" in replayed.stdout, replayed.stderr


@pytest.mark.parametrize(("case", "text", "kind"), [
    ("bg101/late_write.c", "g_rx = &port2;", "fault"),  # the handler reads g_rx->dr, g_rx 0
    ("bg101/late_write.c", "tx_busy = 1u;", "not serializable"),  # the hand-over overwritten
    ("bg101/late_registered_line.c", "tx_port = &s_tx;", "fault"),  # tx_port->count++, 0
])
def test_confirm_takes_an_interrupt_pending_at_its_enable_before_a_late_write(tmp_path, case,
                                                                               text, kind):
    # A late write: state written only after the call that lets the handler run. The finding
    # names that call (its timeline gate); the handler is injected from it on (an interrupt
    # pending while its source was off is taken there), not before the call, where "the
    # handler wholly before" is no order the part can run. A NULL pointer it then uses lands
    # in the null page (the vector table): a fault where the handler after the call reads
    # none. The replay carries the gate (--after).
    path = _variant(tmp_path, case, "", "")
    (tmp_path / "cmsis_stub.h").write_text((CASES / "include/cmsis_stub.h").read_text())
    v = _confirm(path)[_line(path, text)]
    assert v.status == "confirmed", v.reason
    assert v.reason.endswith(kind) or f"{kind} (" in v.reason, v.reason
    assert "--after " in v.replay
    replayed = _cli(*v.replay.split()[1:])
    assert replayed.returncode == 1 and kind in replayed.stdout, replayed.stderr
    assert kind != "fault" or "a null pointer is dereferenced at " in replayed.stdout


def test_the_null_page_is_no_failure_where_the_handler_before_the_call_reads_it_too():
    # Soaked whole, ungated (the clean part's way): USART1 taken before `g_early = &port1;`
    # dereferences NULL, and so does the handler wholly before main: no failure there, nor
    # on the look-alikes (a NULL tested first, an initialised object, a published length).
    path, image, result = _soak_case("bg101/late_write.c", "main", ["USART1_IRQHandler"])
    (r,) = result.handlers
    assert r.explored and all(f.kind != "fault" for f in r.failures), [
        (f.kind, f.outcome.fault) for f in r.failures]


def test_a_handler_that_disarms_its_source_comes_again_only_after_the_rearm(tmp_path):
    # disarmed_completion.c: ADC_IRQHandler calls adc_disable() (one completion per arming);
    # main waits for adc_done, calls adc_enable(), then clears it. The handler taken to end
    # the wait has disarmed its source: before adc_enable() it cannot come again (those
    # boundaries are masked, and "the handler before the test" is no serial order), after it
    # the clear loses the new completion's store, though it stores the 1 already there: the
    # handler after the clear leaves adc_done 1. Clearing first, then re-arming, is clean.
    path = _variant(tmp_path, "bg101/disarmed_completion.c", "", "")
    (tmp_path / "cmsis_stub.h").write_text((CASES / "include/cmsis_stub.h").read_text())
    v = _confirm(path)[_line(path, "adc_done = 0u;                   /* expect")]
    assert v.status == "confirmed" and "location: adc_done" in v.reason, v.reason
    clean = _variant(tmp_path, "bg101/disarmed_completion.c",
                     "adc_enable();\n        adc_done = 0u;",
                     "adc_done = 0u;\n        adc_enable();")
    cleared = _line(clean, "adc_enable();                   /* expect") - 1
    twin = _confirm(clean).get(cleared)
    assert twin is None or twin.status != "confirmed", twin.reason
