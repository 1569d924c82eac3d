"""Lesson 2 (multi-head attention from scratch): the seed's printed lines, parity, figures, the class cell."""

import ast
import inspect
import re
from pathlib import Path

import nbformat

from helpers import multihead
from notebooks import images, seed_checks

STEM = "02_multihead_noldan"

# Script 1 of the seed: every line whose figures are exact (shapes, counts, FLOP, weight counts).
EXACT_LINES = """\
=== 1. Shakllar qadamma-qadam (d_model = 32, h = 4) ===
  X (2, 6, 32) -> W_q(X) (2, 6, 32)
  view(B, n, h, d_k)  -> (2, 6, 4, 8)
  transpose(1, 2)     -> (2, 4, 6, 8)   (har bosh alohida 'batch')
  og'irliklar (2, 4, 6, 6) - har boshning O'Z (n x n) matritsasi
  chiqish (2, 6, 32) - kirish bilan bir xil shakl
=== 2. Boshlar - Q, K, V ning ustun bo'laklari ===
  ya'ni h ta kichik (d_k = 8) attention, har biri o'z proyeksiyasi bilan
=== 3. Bitta boshni qo'lda hisoblash va solishtirish ===
=== 4. Parametrlar: boshlar soniga bog'liq EMAS ===
    h   d_k  parametr  4*d^2 + 4*d  skor FLOP  W sonlari
    1    32      4224         4224    1048576      16384
    2    16      4224         4224    1048576      32768
    4     8      4224         4224    1048576      65536
    8     4      4224         4224    1048576     131072
   16     2      4224         4224    1048576     262144
  n = 128: skor FLOP = h * 2 n^2 d_k = 2 n^2 d_model - o'zgarmaydi
  lekin og'irliklar xotirasi h marta oshadi: har boshning o'z (n x n) matritsasi
=== 5. h = 1: oddiy (bitta boshli) self-attention ===
  ⭐ Ko'p boshli = d_model ni h bo'lakka bo'lib, h ta attention parallel + W_o
""".splitlines()

# Lines whose float differs in the last digits between runs: the seed's wording, the value as a regex group.
FLOAT_LINES = {
    "head_slice": r"^  1-bosh so'rovi = X @ W_q\[8:16\]\.T: maks farq (\S+)$",
    "head_by_hand": r"^  2-bosh og'irliklari farqi: (\S+)$",
    "h1_plain": r"^  maks farq: (\S+)$",
}


test_runs_without_errors, test_seed_line_present, test_parity_differences_are_float_noise = seed_checks(
    EXACT_LINES, FLOAT_LINES)


def test_heads_differ_as_in_the_seed(text):
    pattern = r"^  boshlar orasidagi farq \(0 va 2\): (\S+) - har bosh boshqacha qaraydi$"
    found = re.findall(pattern, text, re.M)
    assert found, "line 'boshlar orasidagi farq (0 va 2)' missing"
    assert abs(float(found[0]) - 0.248) <= 0.002, f"seed prints 0.248, lesson printed {found[0]}"


def test_sections_in_seed_order(text):
    positions = [text.index(f"=== {i}. ") for i in range(1, 6)]
    assert positions == sorted(positions)


def test_common_mistakes_are_measured(text):
    """Mistakes 1-3: same shapes as the right line, visibly different values."""
    same_shape = re.findall(r"^  shakllar: xato (\(.*?\)), to'g'ri (\(.*?\)) - bir xil$", text, re.M)
    assert len(same_shape) == 2 and all(a == b for a, b in same_shape), same_shape
    view_diff = float(re.search(r"^  qiymatlar maks farqi: (\S+)$", text, re.M).group(1))
    assert view_diff > 0.1
    wrong, right = re.search(r"^  moduldan farq: xato (\S+), to'g'ri (\S+)$", text, re.M).groups()
    assert float(wrong) > 0.1 and float(right) < 1e-5
    scale_diff = float(re.search(r"^  og'irliklar maks farqi: (\S+)$", text, re.M).group(1))
    assert scale_diff > 0.01
    pattern = r"eng katta og'irlik \(o'rtacha\): xato (\S+), to'g'ri (\S+)$"
    flat, sharp = re.search(pattern, text, re.M).groups()
    assert float(flat) < float(sharp), "dividing by sqrt(d_model) must give flatter weights"


def test_figures(nb, executed_lessons):
    assert images(nb) == 2
    folder = executed_lessons.figures_dir(STEM)
    for name in ["02_boshlar_ogirliklari.png", "02_parametrlar_va_xotira.png"]:
        path = folder / name
        assert path.exists() and path.stat().st_size > 10_000, f"{name} missing or empty"


def test_one_parameters_cell_with_tez(nb):
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1 and "TEZ = False" in tagged[0].source


def test_taught_class_is_the_helpers_class():
    """The class written out in lesson 2 is, character for character, helpers.multihead (#@save)."""
    source = Path(__file__).resolve().parent.parent / "notebooks" / f"{STEM}.ipynb"
    cells = [c.source for c in nbformat.read(source, as_version=4).cells
             if c.cell_type == "code" and "class MultiHeadAttention" in c.source]
    assert len(cells) == 1, "lesson 2 must write the class out in exactly one cell"
    assert cells[0].strip() == inspect.getsource(multihead.MultiHeadAttention).strip()
    tree = ast.parse(cells[0])
    assert [type(node).__name__ for node in tree.body] == ["ClassDef"], "the class cell holds only the class"
