"""BG401: an SDK call without what the vendor's examples always do before it."""

from __future__ import annotations

from brickguard.findings import Level
from brickguard.rules.base import Rule, demo_check

RULE = Rule(
    id="BG401",
    title="SDK call without a step the vendor's examples always do before it",
    level=Level.warning,
    rationale=(
        "An SDK's usage protocol is mostly written down nowhere but in its own examples: every "
        "one of them calls HAL_Init before the first HAL call, initialises a handle before "
        "starting a transfer on it, enables a GPIO port's clock before configuring its pins. "
        "Code that skips such a step compiles and links, then does nothing or faults on the "
        "board. With [demos] set, brickguard mines these steps from the vendor's example "
        "projects (brickguard demos index) and names the example lines behind each one."
    ),
    instead=(
        "Do the step before the call, on the same handle, as the cited example does."
    ),
    example_bad=(
        'int main(void)\n'
        '{\n'
        '    hi2c.Instance = I2C1;\n'
        '    HAL_I2C_Init(&hi2c);  /* HAL_Init never called */\n'
        '}'
    ),
    example_good=(
        'int main(void)\n'
        '{\n'
        '    HAL_Init();\n'
        '    hi2c.Instance = I2C1;\n'
        '    HAL_I2C_Init(&hi2c);\n'
        '}'
    ),
    check=demo_check("BG401"),
)
