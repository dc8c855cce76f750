"""BG402: an interrupt or DMA mode call without its interrupt side (IRQ enable, handler
dispatch), or a call without the pair the examples always give it."""

from __future__ import annotations

from brickguard.findings import Level
from brickguard.rules.base import Rule, demo_check

# The examples share all but the EV handler's body.
_SHARED = (
    "void HAL_I2C_MspInit(I2C_HandleTypeDef *h)\n{\n"
    "    HAL_NVIC_SetPriority(I2C1_ER_IRQn, 1, 0);\n    HAL_NVIC_EnableIRQ(I2C1_ER_IRQn);\n"
    "    HAL_NVIC_SetPriority(I2C1_EV_IRQn, 2, 0);\n    HAL_NVIC_EnableIRQ(I2C1_EV_IRQn);\n}\n"
    "void start(void)\n{\n    hi2c.Instance = I2C1;\n    HAL_I2C_Init(&hi2c);\n"
    "    HAL_I2C_Slave_Receive_IT(&hi2c, buf, 4);\n}\n"
)
_EV = "void I2C1_EV_IRQHandler(void)\n{{\n{body}\n}}\n"
_ER = "void I2C1_ER_IRQHandler(void)\n{\n    HAL_I2C_ER_IRQHandler(&hi2c);\n}\n"

RULE = Rule(
    id="BG402",
    title="IT/DMA mode without the IRQ enable or the handler dispatch the examples give it",
    level=Level.warning,
    rationale=(
        "HAL_I2C_Slave_Receive_IT only starts a transfer: the bytes move in the peripheral's "
        "interrupt, which must be enabled in the NVIC and whose handler must hand the handle to "
        "the HAL's dispatcher (I2C1_EV_IRQHandler calling HAL_I2C_EV_IRQHandler). Without "
        "either, the call returns HAL_OK and nothing ever completes. The vendor's examples of "
        "the mode all have both; brickguard cites their lines (with [demos] set)."
    ),
    instead=(
        "Enable the IRQ (HAL_NVIC_SetPriority and HAL_NVIC_EnableIRQ, usually in the MSP "
        "init) and define the IRQ handler calling the HAL dispatcher with the same handle."
    ),
    example_bad=_SHARED + _EV.format(body="    /* HAL_I2C_EV_IRQHandler(&hi2c) forgotten */") + _ER,
    example_good=_SHARED + _EV.format(body="    HAL_I2C_EV_IRQHandler(&hi2c);") + _ER,
    check=demo_check("BG402"),
)
