"""Lesson 1 (notebooks/01_attention_asoslari.ipynb): the lesson's claims, checked on the full run.

Each claim is read from what the student sees: the printed lines and tables of the executed notebook.
"""

import json
import os
import re
import struct
from math import comb

import pytest

from builder import claims
from builder.claims import NUMBER
from tests.notebooks import cell_output_text, errors, images

STEM = "01_attention_asoslari"
SOURCE = os.path.join(os.path.dirname(__file__), "..", "notebooks", f"{STEM}.ipynb")
FIGURES = ["01_yol_uzunligi.png", "01_gradient_qadamlar.png", "01_attention_ogirligi.png", "01_vaqt_va_hajm.png"]


def cell_text(nb, marker: str) -> str:
    """Output of the one code cell whose source contains marker."""
    found = [c for c in nb.cells if c.cell_type == "code" and marker in c.source]
    assert len(found) == 1, f"expected one cell containing {marker!r}, found {len(found)}"
    return cell_output_text(found[0])


def table_row(output: str, name: str, pattern: str) -> re.Match:
    match = claims.table_row(output, name, pattern)
    assert match, f"no row for {name!r} matching {pattern!r} in:\n{output}"
    return match


def printed_value(output: str, label: str) -> float:
    found = claims.printed_value(output, label)
    assert found is not None, f"no line {label!r} : <number> in:\n{output}"
    return found


# --- the committed notebook -------------------------------------------------------------------

def test_committed_without_outputs_and_with_one_parameters_cell():
    with open(SOURCE, encoding="utf-8") as f:
        source = json.load(f)
    code = [c for c in source["cells"] if c["cell_type"] == "code"]
    assert all(not c["outputs"] and c["execution_count"] is None for c in code)
    assert "".join(source["cells"][0]["source"]).startswith("# Attention va Transformer")
    tagged = [c for c in code if "parameters" in c["metadata"].get("tags", [])]
    assert len(tagged) == 1, "papermill needs exactly one cell tagged 'parameters'"
    defaults = {}
    exec("".join(tagged[0]["source"]), defaults)  # the defaults run the lesson as the seed wrote it
    assert (defaults["TEZ"], defaults["T"], defaults["EPOXALAR"], defaults["SEEDLAR"]) == (False, 60, 60, (0, 1, 2))


# --- the executed lesson (full mode) ----------------------------------------------------------

def test_runs_without_errors_and_quietly(nb):
    assert errors(nb) == []
    stderr = "".join(out.get("text", "") for c in nb.cells if c.cell_type == "code"
                     for out in c.get("outputs", []) if out.get("name") == "stderr")
    assert "it/s" not in stderr and "s/it" not in stderr, f"progress bars leaked into the log:\n{stderr}"


def test_torch_uses_the_threads_it_was_given(text, executed_lessons):
    # execute_all gave the kernel a thread count (KURS_OQIMLAR): the lesson must not hard-code one.
    assert f"torch oqimlari: {executed_lessons.runs[STEM].threads}" in text


def test_seed_lines_printed_word_for_word(text):
    for line in [
        "Kirish h: (1, 4, 8)   -> 4 pozitsiya, har biri 8 o'lchamli vektor",
        "  ball shakli: (1, 4, 4)  -> har pozitsiya har pozitsiyaga ball qo'yadi",
        "2-qadam: sqrt(d) ga bo'lish (d=8, sqrt=2.828)",
        "  har qator yig'indisi: [1. 1. 1. 1.]",
        "4-qadam: og'irliklar bilan V ning o'rtachasi -> (1, 4, 8)",
        "  softmax(Q @ K.T / sqrt(d)) @ V",
        "Kirishning birinchi va oxirgi qadamiga yetib boradigan gradient (T=60):",
        "Tasodifiy javob = 0.50. Har model 3 seed bilan.",
        "Chiqish o'zgarmadi. Demak model uchun ketma-ketlik — TARTIBSIZ TO'PLAM.",
        "Qolgan 59 qadamning o'rtachasi      : ",
        "     T   RNN vaqti (ms)   attention (ms)    attn matritsa hajmi",
        "Matritsa hajmi ustuni: T ikki barobar oshsa, u ANIQ to'rt barobar o'sadi.",
        "Kirish : (2, 10, 32)",
        "Chiqish: (2, 10, 32)   (shakl saqlanadi — shuning uchun taxlash mumkin)",
        "Tayyor model olinadi va moslashtiriladi. Buning yo'li — 38-bobda (LoRA, QLoRA).",
    ]:
        assert line in text, f"seed line missing from the executed lesson: {line!r}"


def test_scaling_by_sqrt_d_keeps_softmax_from_saturating(nb):
    out = cell_text(nb, "d_sinov")
    rows = re.findall(rf"d=\s*(\d+): ball std =\s*({NUMBER}).*bo'lmasdan ({NUMBER}), sqrt\(d\) ga bo'lib ({NUMBER})",
                      out)
    assert [int(r[0]) for r in rows] == [8, 64, 512], out
    std = [float(r[1]) for r in rows]
    raw = [float(r[2]) for r in rows]
    scaled = [float(r[3]) for r in rows]
    assert std[0] < std[1] < std[2] and raw[0] < raw[1] < raw[2], out
    assert raw[2] > 0.9, f"unscaled softmax at d=512 should saturate, max weight {raw[2]}"
    assert max(scaled) - min(scaled) < 0.05, f"scaled softmax should not depend on d: {scaled}"


def test_gradient_vanishes_through_rnn_and_lstm_but_not_attention(nb):
    out = cell_text(nb, "grad_jadval")
    ratio = claims.gradient_ratios(out)
    assert set(ratio) == {"RNN", "LSTM", "attention"}, out
    assert ratio["RNN"] >= 1e6, ratio
    assert ratio["LSTM"] >= 1e6, ratio
    assert 0.5 <= ratio["attention"] <= 2, ratio


def accuracies(nb) -> dict[str, list[float]]:
    out = cell_text(nb, "sinov = []")
    result = {}
    for name in ("RNN", "LSTM", "attention (+ pozitsiya)", "attention (pozitsiyaSIZ)"):
        row = table_row(out, name, rf"\[([^\]]*)\]\s+({NUMBER})\s+({NUMBER})\s+(\d+)")
        seeds = [float(a) for a in row.group(1).split(",")]
        assert len(seeds) == 3, f"{name}: expected 3 seeds, got {seeds}"
        assert float(row.group(2)) == pytest.approx(sum(seeds) / 3, abs=1e-3), f"{name}: mean column"
        result[name] = seeds
    return result


def test_attention_with_positions_solves_the_task_and_without_does_not(nb):
    acc = accuracies(nb)
    assert sum(acc["attention (+ pozitsiya)"]) / 3 >= 0.99, acc
    assert max(acc["attention (pozitsiyaSIZ)"]) <= 0.6, acc


def test_position_free_model_ignores_order(nb):
    out = cell_text(nb, "torch.randperm(T)")
    assert printed_value(out, "maksimal farq") < 1e-6


def test_set_ceiling_is_the_binomial_bound(nb):
    out = cell_text(nb, "sanash")
    expected = sum(comb(60, k) * max(k, 60 - k) for k in range(61)) / 2 ** 60 / 60
    ceiling = printed_value(out, "Tartibni ko'rmaydigan har qanday model uchun eng yuqori aniqlik")
    assert ceiling == pytest.approx(expected, abs=1e-4)
    # the counting rule reaches the bound on 100 000 fresh sequences, within sampling error (sd ~ 0.0016)
    assert abs(printed_value(out, "Musbatlarni sanash qoidasi, 100 000 ta yangi misolda") - expected) < 0.01


def test_trained_model_attends_to_step_zero(nb):
    out = cell_text(nb, "model.ogirlik.mean")
    assert printed_value(out, "Qadam 0 ga berilgan o'rtacha e'tibor") >= 0.95
    assert printed_value(out, "Eng ko'p e'tibor olgan qadam") == 0
    assert printed_value(out, "Qolgan 59 qadamning o'rtachasi") < 0.001


def test_attention_matrix_grows_exactly_fourfold_per_doubling(nb):
    out = cell_text(nb, "vaqt_jadval = []")
    rows = re.findall(rf"^\s*(\d+)\s+({NUMBER})\s+({NUMBER})\s+(\d+)x(\d+) = (\d+)\s*$", out, re.MULTILINE)
    assert [int(r[0]) for r in rows] == [30, 60, 120, 240], out
    sizes = [int(r[5]) for r in rows]
    assert all(int(r[3]) == int(r[4]) == int(r[0]) for r in rows), out
    assert [b / a for a, b in zip(sizes, sizes[1:], strict=False)] == [4.0, 4.0, 4.0], sizes


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def test_every_figure_is_saved_and_shown(executed_lessons, nb):
    folder = executed_lessons.figures_dir(STEM)
    for name in FIGURES:
        path = folder / name
        assert path.exists(), f"{name} was not written to {folder}"
        width, height = png_size(path)
        assert width > 500 and height > 250 and path.stat().st_size > 15_000, f"{name}: {width}x{height}"
    assert images(nb) >= len(FIGURES)
