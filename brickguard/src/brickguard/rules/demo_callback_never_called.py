"""BG403: a callback the SDK never calls (misspelt, or for another peripheral)."""

from __future__ import annotations

from brickguard.findings import Level
from brickguard.rules.base import Rule, demo_check

RULE = Rule(
    id="BG403",
    title="callback the SDK never calls (misspelt, or for another peripheral)",
    level=Level.warning,
    rationale=(
        "The HAL calls its callbacks by name: HAL_I2C_MasterTxCpltCallback, not "
        "HAL_I2C_MasterTxCompleteCallback. A misspelt callback is a new function nobody calls, "
        "and the HAL's empty weak one runs instead; so does a callback for a peripheral the "
        "program never starts (HAL_UART_TxCpltCallback in an I2C driver). Both compile "
        "silently. Like BG201's 'did you mean', brickguard names the callbacks the SDK declares "
        "for the program's handles, preferring those the vendor's examples define."
    ),
    instead="Name the callback exactly as the SDK declares it, for the handle type you start.",
    example_bad=(
        'void HAL_I2C_MasterTxCompleteCallback(I2C_HandleTypeDef *h)\n'
        '{\n'
        '    (void)h;\n'
        '}'
    ),
    example_good=(
        'void HAL_I2C_MasterTxCpltCallback(I2C_HandleTypeDef *h)\n'
        '{\n'
        '    (void)h;\n'
        '}'
    ),
    check=demo_check("BG403"),
)
