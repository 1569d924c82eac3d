"""Lesson 5 executed in full: the seed's five sections (pattern, means, paired differences, redundancy,
conclusion) and the multi-seed study, whose table and conclusion must agree with each other."""

import re

import pytest

from helpers.tajriba import mcnemar_aniq, wilson, xulosa
from tests.notebooks import errors, images

STEM = DARS = "05_bosh_soni_tajribasi"

# The seed's printed tables (script 4).
SEED_SEEDLAR = {1: [0.444, 1.0, 0.401, 1.0], 2: [1.0, 1.0, 0.404, 1.0], 4: [1.0] * 4, 8: [1.0] * 4}
SEED_ORTACHA = {1: 0.7112, 2: 0.8510, 4: 1.0, 8: 1.0}
SEED_FARQ = {2: 0.1398, 4: 0.2888, 8: 0.2888}
SEED_ZAXIRA = {2: (0.688, 0.878), 4: (0.205, 0.786), 8: (0.041, 0.341)}
# Known drift (torch 2.13.0 CPU): seed 2 trains to a different stuck point here (h = 1: 0.310 vs 0.401,
# h = 2: 0.426 vs 0.404). It stays stuck, and the means stay within 0.05 of the seed's because the
# other three seeds reproduce; the drift itself is asserted to be reported by the notebook's comparison.
DRIFT_SEED = 2


@pytest.fixture(scope="module")
def aniqlik(text):
    """{h: (mean, [per-seed], solved)} from section 2."""
    qatorlar = re.findall(r"  h = (\d): o'rtacha ([\d.]+)  seedlar \[([^\]]*)\]  yechgan seedlar (\d)/4", text)
    return {int(h): (float(o), [float(x) for x in s.split(",")], int(y)) for h, o, s, y in qatorlar}


@pytest.fixture(scope="module")
def tadqiqot(text):
    """The study's table rows (text/plain of show()), as the dicts helpers.tajriba.xulosa reads."""
    qatorlar = []
    for h, k, n, ulush, quyi, yuqori, b, c, p in re.findall(
            r"^\s*(\d)\s+(\d+)/(\d+)\s+(\d+)%\s+(\d+)% - (\d+)%\s+(\S+)\s+(\S+)\s+(\S+)\s*$", text, re.M):
        qatorlar.append({"h": int(h), "yechgan": int(k), "seedlar": int(n), "ulush_foiz": int(ulush),
                         "oraliq_foiz": (int(quyi), int(yuqori)),
                         "faqat_h": None if b == "-" else int(b), "faqat_asos": None if c == "-" else int(c),
                         "p_matn": p})
    return qatorlar


def test_runs_without_errors_and_shows_three_figures(nb, executed_lessons):
    assert errors(nb) == []
    assert images(nb) == 3
    papka = executed_lessons.figures_dir(DARS)
    for nom in ["05_seedlar_aniqligi.png", "05_zaxira.png", "05_tadqiqot.png"]:
        assert (papka / nom).stat().st_size > 10_000, f"{nom} yo'q yoki bo'sh"


def test_sections_in_the_seed_layout(text):
    sarlavhalar = ["=== 1. Bir xil d_model = 32: parametrlar soni teng ===",
                   "=== 2. Aniqlik (ikkala nishon to'g'ri), 400 qadam, 4 seed ===",
                   "=== 3. Juftlashgan farq h = 1 ga nisbatan (bir xil seed) ===",
                   "=== 4. Bitta boshni o'chirganda aniqlik tushishi ===",
                   "=== 5. Xulosa ===",
                   "=== 6. Kengaytirilgan tadqiqot: har h uchun 32 juft seed ==="]
    joylar = [text.index(s) for s in sarlavhalar]
    assert joylar == sorted(joylar)
    assert "    h     farq      SE  sezilarli" in text
    assert "  boshlar ko'p bo'lsa, bitta bosh kamroq 'yagona mas'ul' bo'ladi" in text


def test_parameter_counts_as_printed(text):
    for h, dk in [(1, 32), (2, 16), (4, 8), (8, 4)]:
        assert f"  h = {h}: d_k = {dk:>2}, attention parametrlari 4224, jami 10128" in text


def test_pairing_and_process_checks(text):
    assert "seed 0: h = 1 va h = 8 boshlang'ich og'irliklari bir xil: True" in text
    assert re.search(r"h = 2, seed 2: shu jarayonda ([\d.]+), .* \1; hamma natijalar bir xil: True", text)


def test_solved_stuck_pattern_per_seed_and_h_as_in_seed(aniqlik):
    assert sorted(aniqlik) == [1, 2, 4, 8]
    for h, seedda in SEED_SEEDLAR.items():
        _, bu_yerda, yechgan = aniqlik[h]
        assert [a > 0.95 for a in bu_yerda] == [a > 0.95 for a in seedda], f"h = {h}: {bu_yerda}"
        assert yechgan == sum(a > 0.95 for a in seedda)
        for a in bu_yerda:
            assert a > 0.95 or 0.25 < a < 0.6, f"h = {h}: qotgan seed ~0.4 atrofida bo'lishi kerak, {a}"


def test_seeds_that_reproduce_are_close_to_the_seed(aniqlik):
    for h, seedda in SEED_SEEDLAR.items():
        for s, (a, a0) in enumerate(zip(aniqlik[h][1], seedda, strict=True)):
            if s != DRIFT_SEED:
                assert a == pytest.approx(a0, abs=0.01), f"h = {h}, seed {s}"


def test_means_within_005_of_the_seed(aniqlik):
    for h, o0 in SEED_ORTACHA.items():
        assert aniqlik[h][0] == pytest.approx(o0, abs=0.05), f"h = {h}"


def test_drift_of_seed_2_is_reported_with_both_values(text, aniqlik):
    assert "HOLATI BOSHQACHA" not in text
    for h in [1, 2]:
        a, a0 = aniqlik[h][1][DRIFT_SEED], SEED_SEEDLAR[h][DRIFT_SEED]
        qator = re.search(rf"  h = {h}: o'rtacha [\d.]+ \(seed matnida [\d.]+\); (.*)", text).group(1)
        if round(a, 3) != a0:
            assert f"seed {DRIFT_SEED}: {a:.3f} (seed matnida {a0})" in qator
        assert qator.endswith("yechdi/qotdi holati bir xil")


def test_paired_differences_not_significant_as_in_seed(text):
    qatorlar = re.findall(r"^\s+(\d)\s+([+-][\d.]+)\s+([\d.]+)\s+(True|False)$", text, re.M)
    assert [int(h) for h, *_ in qatorlar] == [2, 4, 8]
    for h, farq, se, sezilarli in qatorlar:
        assert float(farq) == pytest.approx(SEED_FARQ[int(h)], abs=0.05)
        assert sezilarli == "False" and abs(float(farq)) <= 2 * float(se)


def test_redundancy_drops_as_in_seed(text):
    zaxira = {int(h): (float(o), float(m)) for h, o, m in
              re.findall(r"  h = (\d): o'rtacha tushish ([\d.]+), eng katta tushish ([\d.]+)", text)}
    assert sorted(zaxira) == [2, 4, 8]
    for h, (o0, m0) in SEED_ZAXIRA.items():
        assert zaxira[h] == pytest.approx((o0, m0), abs=0.05), f"h = {h}"
    assert zaxira[2][0] > zaxira[4][0] > zaxira[8][0]


def test_seed_conclusion_with_slips_fixed(text):
    assert "  eng yuqori o'rtacha (1.0000): h = [4, 8]" in text
    assert "  h = [1, 2]: natija ikki xil - seed yo 'yechadi' (1.0), yo 'qotib qoladi' (~0.4)" in text
    assert ("  2*SE mezoni bo'yicha h = 1 dan hech bir farq sezilarli emas: 4 seed kam, tarqoqlik katta"
            in text)
    assert "-bob" not in text


def test_study_reuses_section_2_and_trains_the_rest(text):
    assert re.search(r"yangi o'rgatilgan modellar: 112, 2-bo'limdan olingan: 16; vaqt \d+ s", text)


def test_study_table_is_self_consistent(tadqiqot, aniqlik):
    assert [q["h"] for q in tadqiqot] == [1, 2, 4, 8]
    for q in tadqiqot:
        k, n = q["yechgan"], q["seedlar"]
        assert n == 32
        assert q["ulush_foiz"] == round(100 * k / n)
        quyi, yuqori = wilson(k, n)
        assert q["oraliq_foiz"] == (round(100 * quyi), round(100 * yuqori))
        # seeds 0-3 are section 2's: the study cannot have fewer solved seeds than those
        assert k >= aniqlik[q["h"]][2]
        if q["h"] == 1:
            assert q["faqat_h"] is None and q["p_matn"] == "-"
        else:
            assert q["faqat_h"] - q["faqat_asos"] == k - tadqiqot[0]["yechgan"]   # pairs add up
            assert q["p_matn"] == f"{mcnemar_aniq(q['faqat_h'], q['faqat_asos']):.2g}"


def test_study_conclusion_is_computed_from_its_table(tadqiqot, text):
    qatorlar = [dict(q, p=None if q["faqat_h"] is None else mcnemar_aniq(q["faqat_h"], q["faqat_asos"]))
                for q in tadqiqot]
    assert xulosa(qatorlar) in text
    # and, independently of the helper, each claim agrees with the table's own p and counts
    chegara = 0.05 / 3
    for q in qatorlar[1:]:
        if q["p"] < chegara and q["faqat_h"] > q["faqat_asos"]:
            assert f"h = {q['h']} ko'proq seedda yechadi" in text
        elif q["p"] >= chegara:
            assert f"h = {q['h']} va h = 1 orasidagi farq" in text


def test_study_conclusion_itself(text):
    """What 32 paired seeds show here; a change in any seed's outcome that flips it fails this test."""
    assert "Xulosa: h = [2, 4, 8] h = 1 dan ishonchli ravishda ko'proq seedda vazifani yechadi." in text


def test_unsolved_seeds_are_described(text, tadqiqot):
    for q in tadqiqot:
        qolgan = q["seedlar"] - q["yechgan"]
        if qolgan:
            assert re.search(rf"  h = {q['h']}: yecha olmagan {qolgan} seed, aniqligi", text)
        else:
            assert f"  h = {q['h']}: 32 seedning hammasi yechdi" in text
