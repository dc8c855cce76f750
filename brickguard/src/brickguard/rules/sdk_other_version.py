"""BG204: symbol or signature from another SDK version or chip than the target."""

from __future__ import annotations

from brickguard.findings import Level
from brickguard.rules.base import Rule, sdk_check

RULE = Rule(
    id="BG204",
    title='symbol or signature from another SDK version or chip than the target',
    level=Level.error,
    rationale=(
        "Code written against an older SDK (or copied from another chip's example) uses a name "
        "that was renamed, or a signature that gained a parameter. With several SDK indexes "
        "loaded, brickguard tells which SDK the code was written for and shows both signatures."
    ),
    instead=(
        "Port the call to the target SDK's API: the finding quotes the target's declaration."
    ),
    example_bad='media_pipeline_start(pipeline);            /* v1 signature */',
    example_good='media_pipeline_start(ctx, pipeline);       /* v2: leading context */',
    check=sdk_check("BG204"),
)
