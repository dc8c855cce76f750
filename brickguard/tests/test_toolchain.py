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


def test_libc_dirs_leave_out_gccs_own_builtin_headers():
    tc = toolchain.Toolchain(Path("/usr/bin/arm-none-eabi-gcc"), None, (
        Path("/usr/lib/gcc/arm-none-eabi/12.2.1/include"),
        Path("/usr/lib/gcc/arm-none-eabi/12.2.1/include-fixed"),
        Path("/usr/lib/arm-none-eabi/include")))
    assert tc.libc_dirs == (Path("/usr/lib/arm-none-eabi/include"),)


def test_compiler_macros_name_the_compiler():
    assert toolchain.compiler_macros("/opt/arm/bin/armclang")[0] == {"__ARMCC_VERSION": "6190004"}
    assert toolchain.compiler_macros("iccarm.exe")[0] == {"__ICCARM__": "1"}
    macros, source = toolchain.compiler_macros("no-such-gcc-anywhere")
    if toolchain.find_gcc() is None:
        assert macros == toolchain.CLANG_LIKE and "no target gcc" in source


@pytest.mark.skipif(toolchain.find_gcc() is None, reason=NO_GCC)
def test_real_gcc_macros_follow_the_target_flags():
    m4, _ = toolchain.compiler_macros("arm-none-eabi-gcc", ["-mcpu=cortex-m4", "-mthumb"])
    m0, _ = toolchain.compiler_macros("arm-none-eabi-gcc", ["-mcpu=cortex-m0", "-mthumb"])
    assert int(m4["__GNUC__"]) >= 9 and m4.get("__ARM_ARCH_7EM__") == "1"
    assert m0.get("__ARM_ARCH_6M__") == "1" and "__ARM_ARCH_7EM__" not in m0
    lib = toolchain.c_library()
    assert lib.include_dirs and all((d / "string.h").is_file() for d in lib.include_dirs[:1])
