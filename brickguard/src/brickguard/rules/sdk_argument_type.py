"""BG205: argument type incompatible with the SDK parameter."""

from __future__ import annotations

from brickguard.findings import Level
from brickguard.rules.base import Rule, sdk_check

RULE = Rule(
    id="BG205",
    title='argument type incompatible with the SDK parameter',
    level=Level.error,
    rationale=(
        "An enum constant of a sibling peripheral family (UART_MODE_TX where a TIM_ChannelTypeDef"
        " is expected) or a pointer where a value is expected compiles with at most a warning and"
        " programs the wrong bits. brickguard compares the argument with the parameter the SDK "
        "declares."
    ),
    instead=(
        "Pass a value of the parameter's own type: a constant of its enum, a value not a pointer."
    ),
    example_bad='HAL_TIM_PWM_Start(&htim3, UART_MODE_TX);',
    example_good='HAL_TIM_PWM_Start(&htim3, TIM_CHANNEL_1);',
    check=sdk_check("BG205"),
)
