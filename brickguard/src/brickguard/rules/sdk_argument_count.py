"""BG202: wrong number of arguments to an SDK function or function-like macro."""

from __future__ import annotations

from brickguard.findings import Level
from brickguard.rules.base import Rule, sdk_check

RULE = Rule(
    id="BG202",
    title='wrong number of arguments to an SDK function or function-like macro',
    level=Level.error,
    rationale=(
        "A call with too many or too few arguments does not compile, and an assistant's fix is "
        "often a cast or a wrapper that hides the real mistake: a dropped timeout, an extra "
        "handle. The finding quotes the SDK's declaration so the fix is made against it."
    ),
    instead=(
        "Pass exactly the parameters of the SDK's declaration (quoted in the finding)."
    ),
    example_bad='HAL_UART_Transmit(&huart2, buf, len);  /* no timeout */',
    example_good='HAL_UART_Transmit(&huart2, buf, len, 100U);',
    check=sdk_check("BG202"),
)
