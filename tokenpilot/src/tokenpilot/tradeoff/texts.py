"""The texts the quality side reads: all from what is installed, nothing downloaded.

Passages are paragraphs of CPython's own reference documentation (``pydoc_data.topics``, the
text ``help()`` shows), so every machine with Python has them. The needle documents are filler
made of other such paragraphs with short facts ("The secret code of the blue door is 4817.")
put at chosen depths; a question at the end asks for one of them. Which paragraphs, facts and
codes are picked follows the seed, so two runs with one seed read the same texts.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

# Each needle's fact ends in "<prefix> <code>."; its question ends in "<prefix>", so the model
# answers by copying what follows the prefix. The prefixes share no content words, so needles in
# one document are not confused with one another by wording.
PREFIXES = (
    ("the secret code of the {a} {b} is", ("blue", "red", "green", "silver"),
     ("door", "vault", "chest", "gate")),
    ("the phone number of {a} at the {b} office is", ("Anna", "Omar", "Mei", "Lucas"),
     ("Lisbon", "Nairobi", "Osaka", "Quito")),
    ("the winning lottery ticket in {a} {b} was number", ("old", "north", "little", "upper"),
     ("Springfield", "Riverton", "Fairview", "Lakewood")),
    ("the train for {a} {b} leaves from platform", ("Port", "Mount", "Saint", "Glen"),
     ("Arthur", "Pleasant", "Helena", "Morris")),
)

def paragraphs() -> list[str]:
    """Prose paragraphs of ``pydoc_data.topics`` (no headings, tables or code), in a fixed
    order: the topics sorted by name, the paragraphs in their order."""
    try:
        from pydoc_data.topics import topics
    except ImportError:  # a Python built without its docs
        raise RuntimeError("CPython's pydoc_data (the help() texts) is not installed: the "
                           "tradeoff texts come from it") from None
    out = []
    for name in sorted(topics):
        for block in re.split(r"\n\s*\n", topics[name]):
            text = " ".join(line.strip() for line in block.splitlines())
            letters = sum(c.isalpha() for c in text)
            if (len(text) >= 200 and not text.startswith((">>>", "*", "=", "+", "-"))
                    and "  " not in text and letters > 0.75 * len(text)):
                out.append(text)
    return out


def pick(items: list[str], n: int, rng: random.Random) -> list[str]:
    return [items[i] for i in sorted(rng.sample(range(len(items)), min(n, len(items))))]


@dataclass(frozen=True)
class Needle:
    prefix: str  # "the secret code of the blue door is"
    code: str  # "4817"

    @property
    def fact(self) -> str:
        return f" Note that {self.prefix} {self.code}. "

    @property
    def question(self) -> str:
        return (f"\n\nQuestion: what is {self.prefix.rsplit(' ', 1)[0]}?\n"
                f"Answer: {self.prefix}")


def needles(n: int, rng: random.Random) -> list[Needle]:
    """``n`` needles (at most one per prefix), in a seed-given order, with 4-digit codes."""
    if not 1 <= n <= len(PREFIXES):
        raise ValueError(f"a document holds 1 to {len(PREFIXES)} needles, not {n}")
    out = []
    for template, first, second in rng.sample(PREFIXES, n):
        prefix = template.format(a=rng.choice(first), b=rng.choice(second))
        out.append(Needle(prefix, str(rng.randrange(1000, 10000))))
    return out
