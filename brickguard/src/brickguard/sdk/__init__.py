"""SDK truth: an index of what the vendor SDK really declares, and the checks built on it.

``spec`` says where an SDK's headers are, ``index`` reads them with libclang, ``cache`` keeps the
result on disk by header hash, ``suggest`` ranks "did you mean" candidates, ``classify`` turns
compiler diagnostics into BG201-BG205 findings, ``mutate``/``evaluate`` measure all of it.
"""

from brickguard.sdk.model import EnumConstant, Function, Macro, Param, SdkIndex
from brickguard.sdk.spec import SdkSpec, resolve_sdk

__all__ = ["EnumConstant", "Function", "Macro", "Param", "SdkIndex", "SdkSpec", "resolve_sdk"]
