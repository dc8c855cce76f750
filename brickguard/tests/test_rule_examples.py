"""Every rule's documented examples (what ``brickguard explain`` prints) are honest: brickguard
reports the rule on its bad example and not on its good one.

An example is the code a user writes, not a whole program: the declarations of the platform's
own API it calls (a CMSIS/HAL/FreeRTOS stand-in below; the team's test SDK for BG2xx) come
first, as its headers would in a real project.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from builders import CASES, TEST_SDK, fixture_config, isolate_sdk_cache

from brickguard.analyze import analyze
from brickguard.demos.model import DemosSpec
from brickguard.rules import all_rules
from brickguard.rules.base import Rule
from brickguard.sdk.spec import pick_target, resolve_sdk

PLATFORM = """\
#include "cmsis_stub.h"
typedef struct { volatile uint32_t DR; } PERIPH_TypeDef;
#define I2C1 ((PERIPH_TypeDef *)0x40005400u)
#define USART1 ((PERIPH_TypeDef *)0x40011000u)
int printf(const char *fmt, ...);
void HAL_Delay(uint32_t ms);
void log_line(const char *s);
typedef void *QueueHandle_t;
typedef long BaseType_t;
#define pdFALSE 0
BaseType_t xQueueSend(QueueHandle_t q, const void *item, uint32_t wait);
BaseType_t xQueueSendFromISR(QueueHandle_t q, const void *item, BaseType_t *woken);
void vPortYieldFromISR(void);
typedef void *SemaphoreHandle_t;
SemaphoreHandle_t xSemaphoreCreateBinary(void);
SemaphoreHandle_t xSemaphoreCreateMutex(void);
BaseType_t xSemaphoreTake(SemaphoreHandle_t s, uint32_t wait);
BaseType_t xSemaphoreGive(SemaphoreHandle_t s);
#define portMAX_DELAY 0xffffffffu
void vTaskStartScheduler(void);
void flush_log(void);
void append_log(void);
#define portYIELD_FROM_ISR(w) do { if (w) vPortYieldFromISR(); } while (0)
typedef struct { int instance; } UART_HandleTypeDef;
typedef struct { int instance; } SPI_HandleTypeDef;
extern UART_HandleTypeDef huart1;
extern SPI_HandleTypeDef hspi1;
int HAL_UART_Transmit_DMA(UART_HandleTypeDef *h, const uint8_t *data, uint16_t size);
int HAL_UART_Receive_DMA(UART_HandleTypeDef *h, uint8_t *data, uint16_t size);
int HAL_SPI_Transmit_DMA(SPI_HandleTypeDef *h, const uint8_t *data, uint16_t size);
void SCB_CleanDCache_by_Addr(uint32_t *addr, int32_t size);
"""
# The SDK rules' examples are statements: they run in a function, against the test SDK.
SDK_PLATFORM = """\
#include "bk_hal.h"
#include "media.h"
UART_HandleTypeDef huart2;
TIM_HandleTypeDef htim3;
uint8_t buf[8];
uint16_t len;
media_ctx_t *ctx;
media_pipeline_t *pipeline;
void example(void)
{
"""
# The vendor-demo rules' examples are checked against the miniature example set's protocol.
DEMOS = Path(__file__).parent / "demos"
DEMO_PLATFORM = """\
#include "mini_hal.h"
I2C_HandleTypeDef hi2c;
uint8_t buf[4];
GPIO_InitTypeDef pins;
"""
RULES = [r for r in all_rules() if r.id.startswith("BG")]
# The hardware rules' examples (BG3xx) use the real STM32F4 HAL headers and ST's pin data.
FIRMWARE = Path(__file__).resolve().parents[3] / "shared" / "firmware"
HAL_INCLUDE = ("stm32f4/hal/Inc", "stm32f4/cmsis_device/Include", "cmsis_core/CMSIS/Core/Include")


def _run(rule: Rule, code: str, tmp_path: Path) -> set[str]:
    cfg = fixture_config(tmp_path, dcache=rule.id.startswith("BG5"))
    if rule.id.startswith("BG2"):
        cfg.sdks = pick_target([resolve_sdk(TEST_SDK / "v2.toml"),
                                resolve_sdk(TEST_SDK / "v1.toml")])
        cfg.include += [p for p in cfg.sdks[0].include if p not in cfg.include]
        text = f"{SDK_PLATFORM}{code}\n}}\n"
    elif rule.id.startswith("BG4"):
        cfg.include.append(DEMOS / "hal" / "Inc")
        cfg.demos = DemosSpec((DEMOS / "examples",))
        cfg.collect_uses = True
        text = f"{DEMO_PLATFORM}{code}\n"
    elif rule.id.startswith("BG3"):
        if not (FIRMWARE / "pins" / "stm32").is_dir():
            pytest.skip(f"{FIRMWARE}: the shared firmware (HAL headers, pin data) is absent")
        cfg.include = [CASES / "include_hal", *(FIRMWARE / p for p in HAL_INCLUDE)]
        # BG304's example is code drafted against an STM32F429's header, for an F407 board.
        cfg.defines = ["STM32F429xx" if rule.id == "BG304" else "STM32F407xx", "USE_HAL_DRIVER"]
        if rule.id != "BG300":
            cfg.mcu, cfg.pin_data = "STM32F407VGTx", FIRMWARE / "pins" / "stm32"
        text = f'#include "stm32f4xx_hal.h"\n{code}\n'
    elif rule.id == "BG000":
        # The good example names the include folder in the configuration: give it one.
        (tmp_path / "Core" / "Inc").mkdir(parents=True, exist_ok=True)
        (tmp_path / "Core" / "Inc" / "board_config.h").write_text("#define BOARD 1\n")
        if "[build] include" in code:
            cfg.include.append(tmp_path / "Core" / "Inc")
        text = code + "\n"
    elif rule.id == "BG003":
        # The bad example's database lists another file; the regenerated one lists this one.
        listed = "example.c" if "regenerate" in code else "other.c"
        (tmp_path / "compile_commands.json").write_text(
            f'[{{"directory": ".", "file": "{listed}", "arguments": ["cc", "-c", "{listed}"]}}]')
        cfg.compile_commands = tmp_path / "compile_commands.json"
        text = f"{PLATFORM}{code}\n"
    else:
        text = f"{PLATFORM}{code}\n"
    if rule.id.startswith("BG51"):  # the stack rules' examples name their settings
        if m := re.search(r"main_stack = (\d+)", code):
            cfg.main_stack = int(m.group(1))
        if m := re.search(r'gcc = \\?"([^"\\]+)', code):
            cfg.stack_gcc = m.group(1)
    source = tmp_path / "example.c"
    source.write_text(text)
    return {f.rule for f in analyze([source], cfg).findings}


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    isolate_sdk_cache(tmp_path_factory, monkeypatch)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_bad_example_is_reported(rule: Rule, tmp_path: Path) -> None:
    assert rule.id in _run(rule, rule.example_bad, tmp_path), rule.example_bad


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_good_example_is_not_reported(rule: Rule, tmp_path: Path) -> None:
    found = _run(rule, rule.example_good, tmp_path)
    assert rule.id not in found, rule.example_good
    # Nor any other interrupt or DMA rule: a fix that brings in another bug is no example.
    assert not {f for f in found if f[:3] in ("BG1", "BG5")}, (found, rule.example_good)
