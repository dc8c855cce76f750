"""BG203: unknown SDK macro, enum constant or struct field."""

from __future__ import annotations

from brickguard.findings import Level
from brickguard.rules.base import Rule, sdk_check

RULE = Rule(
    id="BG203",
    title='unknown SDK macro, enum constant or struct field',
    level=Level.error,
    rationale=(
        "Register fields, IRQ numbers and clock-enable macros that exist on another chip or in no"
        " SDK at all (GPIOA->ODRX, USART42_IRQn, __HAL_RCC_USART9_CLK_ENABLE) are the commonest "
        "hallucinations in driver code. brickguard looks each name up in the SDK index and "
        "suggests the closest that exists."
    ),
    instead=(
        "Use the macro, enum constant or field the device header and HAL declare."
    ),
    example_bad='GPIOA->ODRX |= GPIO_PIN_5;\nNVIC_EnableIRQ(USART42_IRQn);',
    example_good='GPIOA->ODR |= GPIO_PIN_5;\nNVIC_EnableIRQ(USART2_IRQn);',
    check=sdk_check("BG203"),
)
