"""Lesson 3 (nn.MultiheadAttention): the seed's printed lines, parity, mistakes 4-7, the mask conventions.

Mask conventions are asserted twice: on what the executed lesson printed, and directly against torch, so a
test fails if the lesson or torch ever inverted one.
"""

import re

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from helpers.multihead import MultiHeadAttention
from notebooks import images, seed_checks, value

STEM = "03_nn_multiheadattention"

# Script 2 of the seed: every line with exact figures (shapes, counts, masks, the PAD mass).
EXACT_LINES = """\
=== 1. nn.MultiheadAttention ichidagi parametrlar ===
  in_proj_weight       (96, 32)
  in_proj_bias         (96,)
  out_proj.weight      (32, 32)
  out_proj.bias        (32,)
  jami: 4224, bizniki: 4224
  in_proj_weight = [W_q; W_k; W_v] ustma-ust (3d x d)
=== 2. Og'irliklarni ko'chirish ===
=== 3. key_padding_mask: True = PAD (e'tiborsiz) ===
  0-jumla (uzunlik 7): key_padding_mask [0, 0, 0, 0, 0, 0, 0]
  1-jumla (uzunlik 4): key_padding_mask [0, 0, 0, 0, 1, 1, 1]
  2-jumla (uzunlik 2): key_padding_mask [0, 0, 1, 1, 1, 1, 1]
  PAD ustidagi og'irlik massasi: 0.0
=== 4. F.scaled_dot_product_attention bilan ko'p bosh ===
  diqqat: F.sdpa da True = QATNASHADI, shuning uchun ~pad
=== 5. Cross-attention: so'rov va kalit boshqa ketma-ketlikdan ===
  so'rov (3, 5, 32), kalit/qiymat (3, 7, 32) -> chiqish (3, 5, 32), og'irlik (3, 4, 5, 7)
  ⭐ nn.MultiheadAttention = bizning modul; farqi - in_proj_weight va maska konvensiyasi
""".splitlines()

FLOAT_LINES = {
    "output": r"^  chiqish maks farqi:           (\S+)$",
    "heads": r"^  boshlar og'irligi \(3, 4, 7, 7\): maks farq (\S+)$",
    "average": r"^  sukut bo'yicha og'irlik \(3, 7, 7\) - boshlar O'RTACHASI: farq (\S+)$",
    "padded_output": r"^  chiqish maks farqi: (\S+)$",
    "alone": r"^  2-jumla \(uzunligi 2\) batchda va yolg'iz: farq (\S+)$",
    "sdpa": r"^  \(B, h, n, d_k\) tensorlar bilan F\.sdpa: farq (\S+)$",
    "cross": r"^  bizniki bilan farq: (\S+)$",
    "mask_padding": r"^  uch to'g'ri variant og'irliklari orasidagi maks farq: (\S+)$",
    "mask_causal": r"^  to'g'ri variantlar orasidagi maks farq: (\S+)$",
    "mask_cross": r"^  maks farq: (\S+)$",
    "kdim_vdim": r"^  kdim=20, vdim=12: chiqish \(3, 5, 32\), qo'lda hisob bilan farq (\S+)$",
    "repeat_interleave": r"^  repeat_interleave\(h, 0\): key_padding_mask bilan farq (\S+)$",
    "safe_mask": r"^  shu maska bilan uch API: maks farq (\S+)$",
}


test_runs_without_errors, test_seed_line_present, test_parity_differences_are_float_noise = seed_checks(
    EXACT_LINES, FLOAT_LINES)


def test_sections_in_seed_order(text):
    positions = [text.index(f"=== {i}. ") for i in range(1, 6)]
    assert positions == sorted(positions)


def test_figure(nb, executed_lessons):
    assert images(nb) == 1
    path = executed_lessons.figures_dir(STEM) / "03_kauzal_maska.png"
    assert path.exists() and path.stat().st_size > 10_000


# ---- common mistakes 4-7, as the lesson printed them ----

def test_mistake_batch_first(text):
    assert "  batch_first=False: og'irlik (7, 3, 3) - 7 ta 'jumla', har birida 3 ta 'token'" in text
    assert "  batch_first=True:  og'irlik (3, 7, 7)" in text
    assert float(value(text, r"^  chiqish shakli ikkalasida \(3, 7, 32\), lekin maks farq (\S+)$")) > 0.1


def test_mistake_inverted_key_padding_mask(text):
    wrong, right = re.search(r"^  1-jumla, PAD ga og'irlik .*: xato (\S+), to'g'ri (\S+)$", text, re.M).groups()
    assert float(wrong) == 1.0 and float(right) == 0.0
    assert "  0-jumla (PAD siz) chiqishida NaN: xato True, to'g'ri False" in text


def test_mistake_averaged_weights(text):
    assert "  xato:   W (3, 7, 7), W[:, 0] (3, 7) - 0-so'rovning o'rtacha qatori" in text
    assert "  to'g'ri: W (3, 4, 7, 7), W[:, 0] (3, 7, 7) - 0-boshning matritsasi" in text
    assert float(value(text, r"^  o'rtacha bilan 0-bosh orasidagi maks farq: (\S+)$")) > 0.01


def test_mistake_indivisible_d(text):
    assert "  nn.MultiheadAttention(30, 4): AssertionError: embed_dim must be divisible by num_heads" in text
    assert "  MultiHeadAttention(30, 4):    AssertionError: d_model boshlar soniga bo'linishi kerak" in text
    assert "  nn.MultiheadAttention(32, 4): head_dim = 8" in text


# ---- the mask-convention section, as printed ----

def test_padding_masses(text):
    assert float(value(text, r"^  bizning modul, pad=pad: +(\S+)$")) == 0
    assert float(value(text, r"^  nn\.MultiheadAttention, key_padding_mask: +(\S+)$")) == 0
    assert float(value(text, r"^  F\.sdpa, attn_mask=~pad: +(\S+)$")) == 0
    assert float(value(text, r"^  F\.sdpa, attn_mask=pad \(teskari!\): +(\S+)$")) > 0.5


def test_causal_masses(text):
    for pattern in [r"nn\.MultiheadAttention, attn_mask=triu \(True = yopiq\)", r"qo'lda, masked_fill\(triu, -inf\)",
                    r"F\.sdpa, attn_mask=tril \(True = qatnashadi\)", r"F\.sdpa, is_causal=True"]:
        assert float(value(text, rf"^  {pattern}: +(\S+)$")) == 0, pattern
    assert float(value(text, r"^  F\.sdpa, attn_mask=triu \(teskari!\): +(\S+)$")) > 0.5
    assert "RuntimeError: Need attn_mask if specifying the is_causal hint" in text


def test_cross_attention_and_kdim_vdim(text):
    assert "  og'irliklar shakli: bizniki (3, 4, 5, 7), nn.MHA (3, 4, 5, 7), F.sdpa (3, 4, 5, 7)" in text
    assert "  PAD ga og'irlik: bizniki 0.000, nn.MHA 0.000, F.sdpa 0.000" in text
    for line in ["  q_proj_weight        (32, 32)", "  k_proj_weight        (32, 20)",
                 "  v_proj_weight        (32, 12)", "  in_proj_bias         (96,)", "  in_proj_weight: None"]:
        assert line in text.splitlines(), line


def test_per_head_mask_order(text):
    assert "  maska3[1 * h + 2] yopgan joy: (jumla, bosh) = [(1, 2)]" in text
    assert float(value(text, r"^  repeat\(h, 1, 1\): +key_padding_mask bilan farq (\S+)$")) > 0.1


def all_padding_rows(text):
    block = text.split("hamma kaliti PAD bo'lgan jumla uchun nima qaytadi")[1].split("nan_to_num(O)")[0]
    rows = {}
    for line in block.strip().splitlines()[1:]:
        *path, out, weights = line.split()
        rows[" ".join(path)] = (out, weights)
    return rows


def test_all_padding_row_measured(text):
    rows = all_padding_rows(text)
    assert rows["bizning modul (masked_fill -inf)"] == ("NaN", "NaN")
    assert rows["nn.MHA, need_weights=True (sukut)"] == ("NaN", "NaN")
    assert rows["F.sdpa, bool attn_mask=~pad"] == ("0", "0")
    assert rows["F.sdpa, float attn_mask (-inf)"] == ("0", "0")
    assert rows["nn.MHA, need_weights=False, train()"][0] == "0"
    assert len(rows) == 8


def test_safe_way(text):
    assert "  nan_to_num(O): chiqishda NaN False, gradientda NaN True" in text
    assert ("  xavfsiz_pad + nolga tenglash: chiqishda NaN False, gradientda NaN False, 2-jumla chiqishi 0.0"
            in text)


def test_summary_table(text):
    table = text.split("True nimani anglatadi")[-1]
    assert len(table.strip().splitlines()) == 1 + 5, table   # header + one row per API
    def row(api, mask):
        hits = [line for line in table.splitlines() if line.strip().startswith(api) and mask in line]
        assert len(hits) == 1, (api, mask, table)
        return hits[0]
    assert "kalit yopiladi (0-kalitga 0.00)" in row("bizning modul", "pad (B, n_k)")
    assert "kalit yopiladi (0-kalitga 0.00)" in row("nn.MultiheadAttention", "key_padding_mask")
    assert "kalit yopiladi (0-kalitga 0.00)" in row("nn.MultiheadAttention", "attn_mask (n_q, n_k)")
    assert "kalit qatnashadi (0-kalitga 1.00)" in row("F.scaled_dot_product_attention", "attn_mask")
    assert "kalit yopiladi (0-kalitga 0.00)" in row("nn.MHA va F.sdpa", "float attn_mask")


# ---- the same conventions, directly against torch ----

@pytest.fixture
def setup():
    torch.manual_seed(0)
    ours = MultiHeadAttention(32, 4)
    theirs = nn.MultiheadAttention(32, 4, batch_first=True)
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.W_q.weight, ours.W_k.weight, ours.W_v.weight]))
        theirs.in_proj_bias.copy_(torch.cat([ours.W_q.bias, ours.W_k.bias, ours.W_v.bias]))
        theirs.out_proj.weight.copy_(ours.W_o.weight)
        theirs.out_proj.bias.copy_(ours.W_o.bias)
    X = torch.randn(3, 7, 32)
    pad = torch.arange(7)[None, :] >= torch.tensor([7, 4, 2])[:, None]
    return ours, theirs, X, pad


def sdpa_weights(Q, K, **mask):
    eye = torch.eye(K.shape[-2]).expand(*K.shape[:-1], K.shape[-2])
    return F.scaled_dot_product_attention(Q, K, eye, **mask)


def test_torch_key_padding_mask_true_is_ignored(setup):
    _, theirs, X, pad = setup
    with torch.no_grad():
        _, w = theirs(X, X, X, key_padding_mask=pad, average_attn_weights=False)
    assert w[pad[:, None, None, :].expand_as(w)].abs().max() == 0
    assert w[~pad[:, None, None, :].expand_as(w)].min() > 0


def test_torch_sdpa_bool_true_takes_part(setup):
    ours, _, X, pad = setup
    with torch.no_grad():
        Q, K = ours.bol(ours.W_q(X)), ours.bol(ours.W_k(X))
        w = sdpa_weights(Q, K, attn_mask=~pad[:, None, None, :])
        _, w_ours = ours(X, X, X, pad=pad)
    assert (w - w_ours).abs().max() < 1e-5


def test_torch_causal_conventions(setup):
    ours, theirs, X, _ = setup
    n = 7
    blocked = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
    with torch.no_grad():
        Q, K = ours.bol(ours.W_q(X)), ours.bol(ours.W_k(X))
        _, w_mha = theirs(X, X, X, attn_mask=blocked, average_attn_weights=False)
        w_sdpa = sdpa_weights(Q, K, attn_mask=~blocked)
        w_causal = sdpa_weights(Q, K, is_causal=True)
    assert w_mha[..., blocked].abs().max() == 0
    assert (w_mha - w_sdpa).abs().max() < 1e-5 and (w_causal - w_sdpa).abs().max() < 1e-5


def test_torch_per_head_mask_is_batch_major(setup):
    _, theirs, X, _ = setup
    h = theirs.num_heads
    mask = torch.zeros(3 * h, 7, 7, dtype=torch.bool)
    mask[1 * h + 2, :, 0] = True
    with torch.no_grad():
        _, w = theirs(X, X, X, attn_mask=mask, average_attn_weights=False)
    zero = [(b, k) for b in range(3) for k in range(h) if w[b, k, :, 0].max() == 0]
    assert zero == [(1, 2)]


def test_torch_kdim_vdim_use_separate_projections():
    m = nn.MultiheadAttention(32, 4, kdim=20, vdim=12, batch_first=True)
    names = dict(m.named_parameters())
    assert m.in_proj_weight is None and "in_proj_weight" not in names
    assert names["k_proj_weight"].shape == (32, 20) and names["v_proj_weight"].shape == (32, 12)


def test_torch_all_padding_row():
    """What torch returns for a query whose keys are all padding (the lesson's measured table)."""
    torch.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, batch_first=True)
    X = torch.randn(2, 3, 8)
    pad = torch.tensor([[False] * 3, [True] * 3])
    with torch.no_grad():
        O, w = m(X, X, X, key_padding_mask=pad)
        assert O[1].isnan().all() and w[1].isnan().all() and not O[0].isnan().any()
        q = torch.randn(2, 2, 3, 4)
        o = F.scaled_dot_product_attention(q, q, q, attn_mask=~pad[:, None, None, :])
        assert not o.isnan().any() and o[1].abs().max() == 0
