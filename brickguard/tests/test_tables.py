"""tables.from_mapping: the one reader of configuration tables (brickguard.toml, profiles, SDK
manifests). The dataclass is the schema; every bad value gets one message naming where and what."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import pytest

from brickguard.errors import ConfigError
from brickguard.tables import checked, from_mapping


@dataclass(frozen=True)
class Call:
    function: str
    arg: int


@dataclass(frozen=True)
class Section:
    names: list[str] = field(default_factory=list)
    pair: tuple[str, str] | None = None
    calls: list[Call] = field(default_factory=list)
    twins: dict[str, str] = field(default_factory=dict)
    bits: Literal[8, 16] | None = None
    one_or_many: str | list[str] | None = None
    flag: bool = False
    count: int = checked(lambda n: n >= 0, "0 or more", default=0)


@dataclass(frozen=True)
class File:
    title: str = ""
    section: Section = field(default_factory=Section)


def test_values_are_converted_to_the_annotated_types() -> None:
    data = {
        "title": "t",
        "section": {
            "names": ["a"], "pair": ["x", "y"], "calls": [{"function": "f", "arg": -1}],
            "twins": {"a": "b"}, "bits": 16, "one_or_many": ["p", "q"], "flag": True, "count": 3,
        },
    }
    got = from_mapping(File, data, "f.toml")
    assert got == File("t", Section(["a"], ("x", "y"), [Call("f", -1)], {"a": "b"}, 16,
                                    ["p", "q"], True, 3))
    assert from_mapping(File, {}, "f.toml") == File()
    assert from_mapping(Section, {"one_or_many": "p"}, "f.toml: [section]").one_or_many == "p"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"sectoin": {}}, "f.toml: [sectoin]: unknown table (known: [section])"),
        ({"titel": "x"}, "f.toml: titel: unknown key (known: title, section)"),
        ({"section": {"nmes": []}}, "f.toml: [section] nmes: unknown key (known: names, pair,"),
        ({"section": {"names": "a"}}, "f.toml: [section] names: must be a list of strings"),
        ({"section": {"names": ["a", 1]}}, "f.toml: [section] names[1]: must be a string"),
        ({"section": {"pair": ["x"]}}, "f.toml: [section] pair: must be a [string, string] pair"),
        ({"section": {"calls": [{"function": "f"}]}}, "[section] calls[0]: missing key arg"),
        ({"section": {"calls": ["f"]}}, "calls[0]: must be a table {function, arg}"),
        ({"section": {"twins": {"a": 1}}}, "f.toml: [section] twins a: must be a string"),
        ({"section": {"bits": 24}}, "f.toml: [section] bits: must be one of 8, 16"),
        ({"section": {"one_or_many": 3}}, "one_or_many: must be a string or a list of strings"),
        ({"section": {"flag": 1}}, "f.toml: [section] flag: must be true or false"),
        ({"section": {"count": True}}, "f.toml: [section] count: must be an integer"),
        ({"section": {"count": -1}}, "f.toml: [section] count: must be 0 or more"),
        ({"section": 3}, "f.toml: [section]: must be a table {names, pair,"),
    ],
)  # fmt: skip
def test_bad_values_name_the_place_and_what_it_must_be(data: dict, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        from_mapping(File, data, "f.toml")
    assert message in str(err.value)


def test_a_table_read_alone_is_named_by_its_where() -> None:
    with pytest.raises(ConfigError, match=r"^m\.toml: \[sdk\] names: must be a list of strings$"):
        from_mapping(Section, {"names": 1}, "m.toml: [sdk]")
