"""helpers/boshlar.py: the lesson-4 code, defined once (d2l's #@save idea) and behaving as lesson 4 teaches."""

import ast
import inspect
from pathlib import Path

import nbformat
import pytest
import torch

from helpers import boshlar

ROOT = Path(__file__).resolve().parent.parent
DARS4 = ROOT / "notebooks" / "04_boshlar_ixtisoslashuvi.ipynb"
DARS5 = ROOT / "notebooks" / "05_bosh_soni_tajribasi.ipynb"
ORGATILGAN = ["malumot", "MHA", "Model", "orgat", "aniqlik", "ikkalasi"]


def _kod_kataklari(yol):
    return ["".join(c.source) for c in nbformat.read(yol, as_version=4).cells if c.cell_type == "code"]


def _tariflar(yol):
    """{name: source text} of every top-level def/class written in the notebook's code cells."""
    topildi = {}
    for kod in _kod_kataklari(yol):
        for tugun in ast.parse(kod).body:
            if isinstance(tugun, ast.FunctionDef | ast.ClassDef):
                topildi[tugun.name] = ast.get_source_segment(kod, tugun)
    return topildi


@pytest.mark.parametrize("nom", ORGATILGAN)
def test_lesson4_writes_out_exactly_the_helpers_definition(nom):
    tariflar = _tariflar(DARS4)
    assert nom in tariflar, f"4-dars {nom} ni yozib ko'rsatishi kerak (u o'sha yerda o'rgatiladi)"
    helpersda = inspect.getsource(getattr(boshlar, nom)).rstrip("\n")
    assert tariflar[nom] == helpersda, (
        f"4-darsdagi {nom} helpers/boshlar.py dagidan farq qiladi - bittasini o'zgartirib, ikkinchisini "
        "unutgansiz; ular harfma-harf bir xil bo'lishi kerak")


def test_lesson4_does_not_redefine_other_helpers_names():
    """A notebook-only helper must not shadow a helpers.boshlar name with a different body."""
    tariflar = _tariflar(DARS4)
    for nom, kod in tariflar.items():
        if hasattr(boshlar, nom):
            assert kod == inspect.getsource(getattr(boshlar, nom)).rstrip("\n"), nom


def test_lesson4_constants_match_helpers():
    kod = "\n".join(_kod_kataklari(DARS4))
    assert "K, N = 8, 12            # 8 xil token, uzunlik 12" in kod
    assert (boshlar.K, boshlar.N) == (8, 12)
    assert "from helpers.boshlar" not in kod, "4-dars bu kodni o'zi o'rgatadi, import qilmaydi"


def test_lesson5_imports_instead_of_repeating():
    tariflar = _tariflar(DARS5)
    takror = sorted(set(tariflar) & set(ORGATILGAN))
    assert not takror, f"5-dars 4-dars kodini takrorlamasligi kerak, lekin yozilgan: {takror}"
    assert "from helpers.boshlar import" in "\n".join(_kod_kataklari(DARS5))


def test_docstrings_name_lesson_4():
    for nom in ORGATILGAN:
        assert "04_boshlar_ixtisoslashuvi" in (getattr(boshlar, nom).__doc__ or ""), nom


def test_malumot_targets_are_previous_and_first_token():
    X, ya, yb = boshlar.malumot(5, torch.Generator().manual_seed(0))
    assert X.shape == (5, 12) and ya.shape == yb.shape == (5, 11)
    assert torch.equal(ya, X[:, :-1])                   # nishon i da x[i-1]
    assert torch.equal(yb, X[:, :1].expand(5, 11))      # nishon hamma joyda x[0]
    assert int(X.min()) >= 0 and int(X.max()) < boshlar.K


def test_head_switch_removes_exactly_one_head():
    torch.manual_seed(0)
    mha = boshlar.MHA(32, 4)
    x = torch.randn(2, 12, 32)
    with torch.no_grad():
        o, w = mha(x)
        o_yoq, _ = mha(x, torch.zeros(4))
        o3, w3 = mha(x, torch.tensor([1.0, 1.0, 1.0, 0.0]))
        # 3-bosh hissasi: W_o ning shu boshga tegishli ustunlari orqali
        O = (w @ mha.W_qkv(x).view(2, 12, 3, 4, 8).permute(2, 0, 3, 1, 4)[2])[:, 3]
        hissa = O @ mha.W_o.weight[:, 24:32].T
    assert w.shape == (2, 4, 12, 12)
    assert torch.allclose(w.sum(-1), torch.ones(2, 4, 12))
    assert torch.allclose(o_yoq, mha.W_o.bias.expand_as(o_yoq))
    assert torch.equal(w3, w)
    assert torch.allclose(o - o3, hissa, atol=1e-6)


def test_parameter_counts_do_not_depend_on_h():
    for h in [1, 2, 4, 8]:
        m = boshlar.Model(h)
        assert sum(p.numel() for p in m.mha.parameters()) == 4224
        assert sum(p.numel() for p in m.parameters()) == 10128


def test_orgat_is_reproducible_and_batch_matters():
    oqimlar = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        a = boshlar.orgat(2, 3, qadamlar=5)
        b = boshlar.orgat(2, 3, qadamlar=5, batch=128)
        c = boshlar.orgat(2, 3, qadamlar=5, batch=64)
    finally:
        torch.set_num_threads(oqimlar)
    for p, q in zip(a.parameters(), b.parameters(), strict=True):
        assert torch.equal(p, q), "sukut batch = 128 (3-skript) bo'lishi va natija takrorlanishi kerak"
    assert any(not torch.equal(p, q) for p, q in zip(a.parameters(), c.parameters(), strict=True))


def test_same_seed_same_initial_weights_for_every_h():
    """Pairing in lesson 5 is exact: only h differs, the initial weights and the data are the same."""
    torch.manual_seed(5)
    m1 = boshlar.Model(1)
    torch.manual_seed(5)
    m8 = boshlar.Model(8)
    for p, q in zip(m1.parameters(), m8.parameters(), strict=True):
        assert torch.equal(p, q)


def test_accuracy_measures():
    test = boshlar.malumot(50, torch.Generator().manual_seed(9))
    torch.manual_seed(0)
    model = boshlar.Model(2)
    a, b, w = boshlar.aniqlik(model, test)
    ikki = boshlar.ikkalasi(model, test)
    assert w.shape == (50, 2, 12, 12)
    assert 0 <= ikki <= min(a, b) <= 1
