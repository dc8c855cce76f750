"""BG201: call to a function the SDK does not declare (hallucinated API)."""

from __future__ import annotations

from brickguard.findings import Level
from brickguard.rules.base import Rule, sdk_check

RULE = Rule(
    id="BG201",
    title='call to a function the SDK does not declare (hallucinated API)',
    level=Level.error,
    rationale=(
        "An assistant invents SDK functions or misspells real ones in plausible ways "
        "(HAL_UART_TransmitDMA for HAL_UART_Transmit_DMA). C99 and later reject the implicit "
        "declaration; older modes link against nothing, or against a stub that does nothing. "
        "brickguard checks every call against an index of the SDK's headers and the project's own"
        " functions, and names the closest real functions."
    ),
    instead=(
        "Call a function the SDK declares: usually the first 'did you mean' candidate. Check its "
        "signature in the header."
    ),
    example_bad='HAL_UART_TransmitDMA(&huart2, buf, len);',
    example_good='HAL_UART_Transmit_DMA(&huart2, buf, len);',
    check=sdk_check("BG201"),
)
