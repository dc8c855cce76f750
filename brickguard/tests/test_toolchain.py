"""The cross compiler's own answers: its system include folders, parsed from ``gcc -xc -E -v -``."""

from pathlib import Path

import pytest

from brickguard import toolchain

VERBOSE = """\
ignoring nonexistent directory "/usr/lib/gcc/arm-none-eabi/12.2.1/../sys-include"
#include "..." search starts here:
#include <...> search starts here:
 /usr/lib/gcc/arm-none-eabi/12.2.1/include
 /usr/lib/gcc/arm-none-eabi/12.2.1/include-fixed
End of search list.
 /not/a/search/dir
"""


def test_parse_search_list_reads_only_the_angle_bracket_list():
    dirs = toolchain.parse_search_list(VERBOSE)
    assert [d.name for d in dirs] == ["include", "include-fixed"]


def test_missing_compiler_is_none():
    assert toolchain.find_gcc("no-such-gcc-anywhere") is None


NO_GCC = f"no arm-none-eabi-gcc: {toolchain.INSTALL_HINT}"


@pytest.mark.skipif(toolchain.find_gcc() is None, reason=NO_GCC)
def test_real_cross_compiler_reports_a_c_library():
    gcc = toolchain.find_gcc()
    assert gcc is not None
    found = toolchain.probe(gcc)
    headers = [d for d in found.include_dirs if (d / "string.h").is_file()]
    assert headers, f"{gcc} lists no folder with string.h: {found.include_dirs}"
    assert all(isinstance(d, Path) for d in found.include_dirs)
