"""'Did you mean': rank known names by how an assistant misspells them.

Two measures, combined: edit distance on the name folded to lower case without underscores (so a
dropped underscore or a CamelCase change costs nothing there), and similarity of word parts
(``HAL_UART_TransmitDMA`` -> hal, uart, transmit, dma), so that a plural, a tense or a reordered
word still finds its name. Names the file already uses win ties (``USART4_IRQn`` in a file that
uses USART2 everywhere suggests ``USART2_IRQn``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def word_parts(name: str) -> list[str]:
    return [p.lower() for p in _PARTS.findall(name)]


def _fold(name: str) -> str:
    return name.replace("_", "").lower()


def _stem(part: str) -> str:
    # Plural and tense endings are the commonest way an invented name drifts from the real one.
    for suffix in ("ing", "ed", "es", "s"):
        if part.endswith(suffix) and len(part) - len(suffix) >= 3:
            return part[: -len(suffix)]
    return part


def edit_distance(a: str, b: str, limit: int = 99) -> int:
    """Damerau-Levenshtein (optimal string alignment), stopping early beyond ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        best = cur[0]
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                v = min(v, prev2[j - 2] + 1)
            cur[j] = v
            best = min(best, v)
        if best > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


def similarity(wrong: str, candidate: str) -> float:
    """0..1; 1 means the same name up to underscores and case."""
    fa, fb = _fold(wrong), _fold(candidate)
    longest = max(len(fa), len(fb), 1)
    folded = 1.0 - edit_distance(fa, fb, longest) / longest
    pa = [_stem(p) for p in word_parts(wrong)]
    pb = [_stem(p) for p in word_parts(candidate)]
    sa, sb = set(pa), set(pb)
    jaccard = len(sa & sb) / len(sa | sb) if sa | sb else 0.0
    raw = 1.0 - edit_distance(wrong, candidate, longest) / max(len(wrong), len(candidate), 1)
    return 0.55 * folded + 0.3 * jaccard + 0.15 * raw


def suggest(
    wrong: str,
    candidates: Iterable[str],
    used: Collection[str] = (),
    limit: int = 3,
    threshold: float = 0.55,
) -> list[str]:
    """The best ``limit`` candidates for ``wrong``, best first; none below ``threshold``."""
    fw = _fold(wrong)
    parts = {_stem(p) for p in word_parts(wrong)}
    budget = max(3, len(fw) // 2)
    scored = []
    for cand in candidates:
        if cand == wrong:
            continue
        fc = _fold(cand)
        # Cheap filters first: 20,000 macros must not each cost a full edit distance.
        if abs(len(fc) - len(fw)) > budget:
            continue
        if fc[:1] != fw[:1] and not parts & {_stem(p) for p in word_parts(cand)}:
            continue
        score = similarity(wrong, cand)
        if cand in used:
            score += 0.05
        if score >= threshold:
            scored.append((-score, len(cand), cand))
    scored.sort()
    return [c for _, _, c in scored[:limit]]
