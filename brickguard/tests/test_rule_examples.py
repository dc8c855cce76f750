"""Every rule's documented examples (what ``brickguard explain`` prints) are honest: brickguard
reports the rule on its bad example and not on its good one.

An example is the code a user writes, not a whole program: the declarations of the platform's
own API it calls (a CMSIS/HAL/FreeRTOS stand-in below; the team's test SDK for BG2xx) come
first, as its headers would in a real project.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import TEST_SDK, fixture_config, isolate_sdk_cache

from brickguard.analyze import analyze
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
RULES = [r for r in all_rules() if r.id.startswith("BG")]


def _run(rule: Rule, code: str, tmp_path: Path) -> set[str]:
    cfg = fixture_config(tmp_path, dcache=rule.id.startswith("BG5"))
    if rule.id.startswith("BG2"):
        cfg.sdks = pick_target([resolve_sdk(TEST_SDK / "v2.toml"),
                                resolve_sdk(TEST_SDK / "v1.toml")])
        cfg.include += [p for p in cfg.sdks[0].include if p not in cfg.include]
        text = f"{SDK_PLATFORM}{code}\n}}\n"
    elif rule.id == "BG000":
        # The good example names the include folder in the configuration: give it one.
        (tmp_path / "Core" / "Inc").mkdir(parents=True, exist_ok=True)
        (tmp_path / "Core" / "Inc" / "board_config.h").write_text("#define BOARD 1\n")
        if "[build] include" in code:
            cfg.include.append(tmp_path / "Core" / "Inc")
        text = code + "\n"
    else:
        text = f"{PLATFORM}{code}\n"
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
