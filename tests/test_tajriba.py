"""helpers/tajriba.py: the statistics against hand-computed values, the conclusion text, parallel = serial."""

import math

import pytest
import torch

from helpers.tajriba import bir_seed, mcnemar_aniq, parallel_orgat, tadqiqot_jadvali, wilson, xulosa

# Wilson 95% bounds worked out by hand with z^2 = 3.841459:
#   0/32:  upper = z^2 / (32 + z^2) = 3.841459 / 35.841459
#   32/32: lower = 32 / (32 + z^2)
#   16/32: 0.5 -+ z sqrt(0.25/32 + z^2/4096) / (1 + z^2/32) = 0.5 -+ 0.183341 / 1.120046
#   2/4:   0.5 -+ z sqrt(0.0625 + z^2/64) / (1 + z^2/4)   = 0.5 -+ 0.686054 / 1.960365
WILSON_QOLDA = {
    (0, 32): (0.0, 0.107179),
    (32, 32): (0.892821, 1.0),
    (16, 32): (0.336309, 0.663691),
    (2, 4): (0.150039, 0.849961),
}


@pytest.mark.parametrize(("k", "n"), list(WILSON_QOLDA))
def test_wilson_matches_hand_computation(k, n):
    quyi, yuqori = wilson(k, n)
    assert (quyi, yuqori) == pytest.approx(WILSON_QOLDA[k, n], abs=2e-6)


@pytest.mark.parametrize(("k", "n"), [(1, 32), (10, 32), (23, 32), (31, 32), (3, 7)])
def test_wilson_bounds_solve_the_score_equation(k, n):
    """The Wilson interval is the set of p with |k/n - p| <= z sqrt(p(1-p)/n): equality at both ends."""
    z = 1.959963984540054
    for p in wilson(k, n):
        assert abs(k / n - p) == pytest.approx(z * math.sqrt(p * (1 - p) / n), rel=1e-9)


def test_wilson_rejects_nonsense():
    for k, n in [(0, 0), (5, 4), (-1, 4)]:
        with pytest.raises(ValueError):
            wilson(k, n)


@pytest.mark.parametrize(("b", "c", "p"), [
    (6, 0, 2 / 64),            # all 6 discordant pairs one way: 2 * (1/2)^6
    (0, 6, 2 / 64),            # symmetric
    (5, 0, 2 / 32),
    (10, 2, 2 * (1 + 12 + 66) / 4096),   # 2 * P(X <= 2), X ~ Binom(12, 1/2)
    (13, 0, 2 / 8192),
    (3, 3, 1.0),               # capped at 1
    (0, 0, 1.0),               # no discordant pair: no evidence
])
def test_mcnemar_exact_matches_hand_computation(b, c, p):
    assert mcnemar_aniq(b, c) == pytest.approx(p, rel=1e-12)


def _aniqliklar(yechdi):
    """{h: [1.0 if solved else 0.4]} from {h: string of '1'/'0' per seed}."""
    return {h: [1.0 if ch == "1" else 0.4 for ch in qator] for h, qator in yechdi.items()}


def test_table_counts_pairs_on_the_same_seeds():
    qatorlar = tadqiqot_jadvali(_aniqliklar({1: "11000000", 2: "10111111", 4: "11111111"}))
    birinchi, ikki, tort = qatorlar
    assert (birinchi["yechgan"], birinchi["seedlar"], birinchi["p"]) == (2, 8, None)
    assert (ikki["yechgan"], ikki["faqat_h"], ikki["faqat_asos"]) == (7, 6, 1)
    assert ikki["p"] == pytest.approx(2 * (1 + 7) / 128)
    assert (tort["faqat_h"], tort["faqat_asos"], tort["p"]) == (6, 0, pytest.approx(2 / 64))
    assert (tort["quyi"], tort["yuqori"]) == wilson(8, 8)


def test_table_threshold_is_strict_095():
    qatorlar = tadqiqot_jadvali({1: [0.95, 0.951, 0.2]})
    assert qatorlar[0]["yechgan"] == 1


def test_table_requires_paired_seeds():
    with pytest.raises(ValueError):
        tadqiqot_jadvali({1: [1.0, 0.4], 2: [1.0]})


def test_conclusion_follows_the_numbers():
    kuchli = xulosa(tadqiqot_jadvali(_aniqliklar({1: "1" * 4 + "0" * 28, 2: "1" * 32})))
    assert "h = 2 ko'proq seedda yechadi (32/32 va 4/32)" in kuchli
    assert "faqat h = 2 yechgan seedlar 28 ta, faqat h = 1 yechganlari 0 ta, p < 0.001" in kuchli
    assert kuchli.endswith("Xulosa: h = [2] h = 1 dan ishonchli ravishda ko'proq seedda vazifani yechadi.")
    assert "0.05 / 1 = 0.0500" in kuchli

    # 3 vs 0 discordant pairs: p = 0.25, not significant
    zaif = xulosa(tadqiqot_jadvali(_aniqliklar({1: "1" * 16 + "0" * 16, 2: "1" * 19 + "0" * 13})))
    assert "tasodif bo'lishi mumkin" in zaif and "p = 0.250" in zaif
    assert zaif.endswith("Xulosa: h = [2] uchun h = 1 dan farq 32 seed bilan isbotlanmadi.")

    yomon = xulosa(tadqiqot_jadvali(_aniqliklar({1: "1" * 32, 2: "1" * 20 + "0" * 12})))
    assert "h = 2 kamroq seedda yechadi (20/32 va 32/32)" in yomon
    assert "ishonchli ravishda kamroq" in yomon
    assert len({kuchli, zaif, yomon}) == 3


def test_conclusion_uses_bonferroni_threshold():
    # 6 vs 0 discordant: p = 0.03125 < 0.05 but > 0.05 / 3 -> not significant with three comparisons
    aniq = _aniqliklar({1: "0" * 8, 2: "1" * 6 + "00", 4: "0" * 8, 8: "0" * 8})
    matn = xulosa(tadqiqot_jadvali(aniq))
    assert "0.05 / 3 = 0.0167" in matn
    assert "h = 2 va h = 1 orasidagi farq (6/8 va 0/8) tasodif bo'lishi mumkin" in matn
    assert "ishonchli" not in matn.splitlines()[-1]
    # alone (one comparison) the same pairs are significant
    assert "ishonchli ravishda ko'proq" in xulosa(tadqiqot_jadvali({1: aniq[1], 2: aniq[2]}))


def test_bir_seed_restores_thread_count_and_measures_drops():
    oldin = torch.get_num_threads()
    r = bir_seed(2, 0, qadamlar=20)
    assert torch.get_num_threads() == oldin
    assert r["h"] == 2 and r["seed"] == 0 and len(r["tushish"]) == 2
    assert bir_seed(1, 0, qadamlar=20)["tushish"] == []
    assert bir_seed(2, 0, qadamlar=20, ochirish=False)["tushish"] == []


def test_parallel_workers_give_the_same_results_as_this_process():
    juftlar = [(2, 1), (4, 3), (1, 2)]
    shu_yerda = [bir_seed(h, s, qadamlar=30) for h, s in juftlar]
    ishchilarda = parallel_orgat(juftlar, qadamlar=30, ishchilar=2)
    assert ishchilarda == shu_yerda          # exact: same floats, same order as requested
    assert parallel_orgat(juftlar, qadamlar=30, ishchilar=1) == shu_yerda
