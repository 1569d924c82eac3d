"""Lesson 1's claims, read from the executed lesson's printed output (the seed prints no reference for it).

Each claim returns (what is claimed, what this run measured, whether it holds). The thresholds are the
lesson's own statements (issue 2): gradient ratios, accuracies, permutation invariance, where the weight
goes, and the exact 4x growth of the T x T matrix.
"""

import re

NUMBER = r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
SCI = r"(\d\.\d+e[-+]\d+)"


def table_row(text: str, name: str, cells: str) -> re.Match | None:
    """The table row starting with the name `name`, its cells matched by `cells`."""
    return re.search(rf"^\s*{re.escape(name)}\s+{cells}\s*$", text, re.MULTILINE)


def printed_value(text: str, label: str) -> float | None:
    """The number printed on the line `label: <number>`."""
    match = re.search(rf"^\s*{re.escape(label)}\s*:\s*({NUMBER})\s*$", text, re.MULTILINE)
    return float(match.group(1)) if match else None


def gradient_ratios(text: str) -> dict[str, float]:
    """step59/step0 gradient ratio per model, from the gradient table."""
    ratios = {}
    for name in ("RNN", "LSTM", "attention"):
        row = table_row(text, name, rf"{SCI}\s+{SCI}\s+{SCI}")
        if row:
            ratios[name] = float(row.group(3))
    return ratios


def seed_accuracies(text: str) -> dict[str, list[float]]:
    """Per-seed test accuracy per model, from the accuracy table."""
    result = {}
    for name in ("RNN", "LSTM", "attention (+ pozitsiya)", "attention (pozitsiyaSIZ)"):
        row = table_row(text, name, rf"\[([^\]]*)\]\s+{NUMBER}\s+{NUMBER}\s+\d+")
        if row:
            result[name] = [float(a) for a in row.group(1).split(",")]
    return result


def matrix_sizes(text: str) -> list[tuple[int, int]]:
    """(T, T*T) pairs from the timing table's matrix-size column."""
    return [(int(t), int(size)) for t, size in re.findall(r"(\d+)x\1 = (\d+)\s*$", text, re.MULTILINE)]


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def lesson01_claims(text: str) -> list[tuple[str, str, bool]]:
    if not text:
        return [("1-dars bajarilgan", "natija yo'q", False)]
    ratios = gradient_ratios(text)
    acc = seed_accuracies(text)
    shuffle = printed_value(text, "maksimal farq")
    first = printed_value(text, "Qadam 0 ga berilgan o'rtacha e'tibor")
    top = printed_value(text, "Eng ko'p e'tibor olgan qadam")
    sizes = matrix_sizes(text)
    with_pos, without_pos = acc.get("attention (+ pozitsiya)"), acc.get("attention (pozitsiyaSIZ)")
    growth = [b[1] / a[1] for a, b in zip(sizes, sizes[1:], strict=False) if b[0] == 2 * a[0]]
    return [
        ("RNN gradient nisbati qadam59/qadam0 >= 1e6", f"{ratios.get('RNN')}",
         ratios.get("RNN", 0) >= 1e6),
        ("LSTM gradient nisbati qadam59/qadam0 >= 1e6", f"{ratios.get('LSTM')}",
         ratios.get("LSTM", 0) >= 1e6),
        ("attention gradient nisbati 0.5 ... 2 oralig'ida", f"{ratios.get('attention')}",
         0.5 <= ratios.get("attention", -1) <= 2),
        ("pozitsiyali attention: 3 seed o'rtacha aniqligi >= 0.99", f"{with_pos}",
         bool(with_pos) and _mean(with_pos) >= 0.99),
        ("pozitsiyasiz attention: har seedda aniqlik <= 0.6", f"{without_pos}",
         bool(without_pos) and max(without_pos) <= 0.6),
        ("aralashtirish pozitsiyasiz model chiqishini < 1e-6 o'zgartiradi", f"{shuffle}",
         shuffle is not None and shuffle < 1e-6),
        ("o'qitilgan model og'irligining >= 0.95 qismi 0-qadamda", f"{first}",
         first is not None and first >= 0.95),
        ("eng ko'p e'tibor olgan qadam — 0", f"{top}", top == 0),
        ("T ikki barobar oshganda matritsa aniq 4 barobar o'sadi", f"{sizes}",
         len(growth) >= 3 and all(g == 4 for g in growth)),
    ]
