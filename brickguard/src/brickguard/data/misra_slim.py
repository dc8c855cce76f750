"""cppcheck addon: cppcheck's own misra addon, run on a dump slimmed to the project's code.

cppcheck runs this script as it would run ``misra.py`` (``--addon=<this file>``, one call per
dump and one for the whole program). Before handing over to ``misra.py`` it removes from each
dump the preprocessor directives and ``#if`` conditions of vendor headers (CMSIS, the HAL, an
RTOS): misra.py checks every one of them against every other (70,000 macros for one STM32 HAL
unit, most of its run time), and their findings would be dropped anyway, as not the project's.
Declarations, types and macro uses stay, so the project's own code is checked the same.

Set by ``brickguard.misra`` in the environment: ``BRICKGUARD_MISRA`` = JSON with ``addon`` (the
path of cppcheck's misra.py), ``root`` (the project) and ``vendor`` (globs of vendor paths).
"""

from __future__ import annotations

import html
import json
import os
import re
import runpy
import sys

_ELEMENT = re.compile(r'^\s*<(directive|if-cond) file="([^"]*)"')


def main() -> None:
    settings = json.loads(os.environ["BRICKGUARD_MISRA"])
    from brickguard.globs import Globs

    vendor = Globs(settings["vendor"], settings["root"])
    root = os.path.realpath(settings["root"]) + os.sep
    keep: dict[str, bool] = {}

    def kept(name: str) -> bool:
        if name not in keep:
            real = os.path.realpath(html.unescape(name))
            keep[name] = real.startswith(root) and not vendor.match(real)
        return keep[name]

    for arg in sys.argv[1:]:
        if arg.endswith(".dump") and os.path.isfile(arg):
            _slim(arg, kept)
    addon = settings["addon"]
    sys.argv = [addon, *sys.argv[1:]]
    sys.path.insert(0, os.path.dirname(addon))
    runpy.run_path(addon, run_name="__main__")


def _slim(path: str, kept) -> None:
    tmp = path + ".slim"
    with open(path, encoding="utf-8") as src, open(tmp, "w", encoding="utf-8") as out:
        for line in src:
            m = _ELEMENT.match(line)
            if m is None or kept(m.group(2)):
                out.write(line)
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
