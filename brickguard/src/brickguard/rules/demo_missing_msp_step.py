"""BG404: a peripheral initialised without an MSP step (clock, pins, DMA link) the examples do."""

from __future__ import annotations

from brickguard.findings import Level
from brickguard.rules.base import Rule, demo_check

RULE = Rule(
    id="BG404",
    title="peripheral init without an MSP step (clock, pins, DMA link) the examples always do",
    level=Level.warning,
    rationale=(
        "HAL_I2C_Init calls back HAL_I2C_MspInit, where the program must enable the "
        "peripheral's clock, set its pins to the alternate function and link its DMA handles. "
        "An MSP init that misses a step (or a program with none) leaves the peripheral "
        "unclocked: its registers read zero and every transfer times out. brickguard follows "
        "the call into the MSP callback, as the HAL does, and compares with the vendor's "
        "examples (with [demos] set), citing the line where they do it."
    ),
    instead="Add the step to the MSP init callback, as the cited example does.",
    example_bad=(
        'void HAL_I2C_MspInit(I2C_HandleTypeDef *h)\n'
        '{\n'
        '    __HAL_RCC_GPIOB_CLK_ENABLE();\n'
        '    HAL_GPIO_Init(GPIOB, &pins);\n'
        '    /* __HAL_RCC_I2C1_CLK_ENABLE() forgotten */\n'
        '}\n'
        'void start(void)\n'
        '{\n'
        '    hi2c.Instance = I2C1;\n'
        '    HAL_I2C_Init(&hi2c);\n'
        '}\n'
    ),
    example_good=(
        'void HAL_I2C_MspInit(I2C_HandleTypeDef *h)\n'
        '{\n'
        '    __HAL_RCC_GPIOB_CLK_ENABLE();\n'
        '    HAL_GPIO_Init(GPIOB, &pins);\n'
        '    __HAL_RCC_I2C1_CLK_ENABLE();\n'
        '}\n'
        'void start(void)\n'
        '{\n'
        '    hi2c.Instance = I2C1;\n'
        '    HAL_I2C_Init(&hi2c);\n'
        '}\n'
    ),
    check=demo_check("BG404"),
)
