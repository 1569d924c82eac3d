"""Lesson 4 executed in full: the seed's three sections, the head roles and the ablation proof."""

import re

import pytest

from tests.notebooks import errors, images

STEM = DARS = "04_boshlar_ixtisoslashuvi"
TASODIF = 1 / 8

# The seed's printed section 1 (integer data from a fixed generator: identical on every machine).
BOLIM1 = """=== 1. Vazifa: ikki xil bog'lanish ===
  x:                [5, 3, 4, 0, 7, 1, 3, 5, 7, 0, 0, 1]
  nishon 'oldingi':  ['-', 5, 3, 4, 0, 7, 1, 3, 5, 7, 0, 0]
  nishon 'birinchi': ['-', 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5]
  'oldingi' - nisbiy pozitsiya (i-1), 'birinchi' - mutlaq pozitsiya (0)"""


@pytest.fixture(scope="module")
def bir_bosh(text):
    """{seed: (oldingi, birinchi, i-1 ga, 0 ga)} from section 2."""
    qatorlar = re.findall(r"seed (\d): oldingi ([\d.]+)  birinchi ([\d.]+)   og'irlik: i-1 ga ([\d.]+), "
                          r"0 ga ([\d.]+)", text)
    return {int(s): tuple(map(float, q)) for s, *q in qatorlar}


@pytest.fixture(scope="module")
def ikki_bosh(text):
    """{seed: {"toliq": (a, b), "boshlar": [(-> i-1, -> 0, oldingi, birinchi)] * 2, "xulosa": str}}."""
    bloklar = re.findall(
        r"  seed (\d): to'liq model - oldingi ([\d.]+), birinchi ([\d.]+)\n"
        r"    bosh  -> i-1   -> 0   oldingi  birinchi\n"
        r"((?:\s+\d+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+[\d.]+\n){2})"
        r"    -> seed \d: (.*)\n", text)
    natija = {}
    for s, a, b, qatorlar, xulosa in bloklar:
        boshlar = [tuple(map(float, q.split()[1:])) for q in qatorlar.strip("\n").split("\n")]
        natija[int(s)] = {"toliq": (float(a), float(b)), "boshlar": boshlar, "xulosa": xulosa}
    return natija


def test_runs_without_errors_and_shows_both_figures(nb, executed_lessons):
    assert errors(nb) == []
    assert images(nb) == 2
    papka = executed_lessons.figures_dir(DARS)
    for nom in ["04_boshlar_ogirliklari.png", "04_boshni_ochirish.png"]:
        assert (papka / nom).stat().st_size > 10_000, f"{nom} yo'q yoki bo'sh"


def test_sections_in_the_seed_layout(text):
    assert BOLIM1 in text
    sarlavhalar = ["=== 1. Vazifa: ikki xil bog'lanish ===", "=== 2. Bitta bosh (h = 1), 3 seed ===",
                   "=== 3. Ikki bosh (h = 2): har bosh qayerga qaraydi va o'chirilsa nima bo'ladi ==="]
    joylar = [text.index(s) for s in sarlavhalar]
    assert joylar == sorted(joylar)
    assert "  ⭐ Har bosh o'z bog'lanishini o'rganishi mumkin - lekin bu kafolatlanmagan" in text


def test_parameter_counts_as_printed(text):
    for h in [1, 2]:
        assert f"h = {h}: attention parametrlari 4224, jami 10128" in text


def test_head_switch_check_passes(text):
    assert "ikkala bosh o'chiq: chiqish = W_o.bias -> True" in text
    assert "0-bosh o'chiq: chiqish o'zgardi -> True, og'irliklar o'zgarmadi -> True" in text


def test_one_head_solved_stuck_pattern_as_in_seed(bir_bosh):
    assert sorted(bir_bosh) == [0, 1, 2]
    # seed 1 solves both; seeds 0 and 2 stick to the first token (seed: oldingi 0.445 / 0.434)
    assert bir_bosh[1][0] > 0.95 and bir_bosh[1][1] > 0.95
    for s in [0, 2]:
        oldingi, birinchi, ga_oldingi, ga_birinchi = bir_bosh[s]
        assert 0.3 < oldingi < 0.6, f"seed {s}: 'oldingi' {oldingi} - seedda ~0.44 (qotgan)"
        assert birinchi >= 0.99
        assert ga_birinchi > 0.8 and ga_oldingi < 0.2
    # seed 1 splits its weight between both places (seed: 0.32 / 0.64)
    assert 0.2 < bir_bosh[1][2] < 0.45 and 0.5 < bir_bosh[1][3] < 0.8


def test_one_head_seeds_0_and_1_reproduce_the_seed(bir_bosh):
    assert bir_bosh[0][:2] == pytest.approx((0.445, 1.000), abs=0.05)
    assert bir_bosh[1][:2] == pytest.approx((1.000, 1.000), abs=0.05)


def test_two_head_roles(ikki_bosh, text):
    assert sorted(ikki_bosh) == [0, 1, 2]
    assert ikki_bosh[0]["xulosa"] == "boshlar ixtisoslashgan (oldingi / birinchi)"
    assert ikki_bosh[1]["xulosa"] == "boshlar ixtisoslashgan (birinchi / oldingi)"
    assert ikki_bosh[2]["xulosa"].startswith("ixtisoslashuv yo'q")
    assert "  ixtisoslashgan seedlar: 2 / 3" in text


@pytest.mark.parametrize("seed", [0, 1])
def test_ablation_of_a_specialised_head_drops_only_its_target_to_chance(ikki_bosh, seed):
    natija = ikki_bosh[seed]
    assert min(natija["toliq"]) >= 0.99
    rollar = natija["xulosa"].split("(")[1].rstrip(")").split(" / ")
    for (ga_oldingi, ga_birinchi, oldingi, birinchi), rol in zip(natija["boshlar"], rollar, strict=True):
        if rol == "oldingi":
            assert ga_oldingi > 0.8
            assert abs(oldingi - TASODIF) < 0.1, f"seed {seed}: 'oldingi' boshi o'chganda {oldingi}"
            assert birinchi >= 0.99
        else:
            assert ga_birinchi > 0.8
            assert abs(birinchi - TASODIF) < 0.1, f"seed {seed}: 'birinchi' boshi o'chganda {birinchi}"
            assert oldingi >= 0.99


def test_unspecialised_seed(ikki_bosh):
    natija = ikki_bosh[2]
    assert 0.3 < natija["toliq"][0] < 0.5 and natija["toliq"][1] >= 0.99   # seed: 0.369 / 1.000
    # both heads look at position 0 (seed: 0.98 and 0.80); the prose says switching the "aralash" head
    # off lowers "oldingi" further: check it
    assert all(q[1] > 0.7 for q in natija["boshlar"])
    aralash = [q for q in natija["boshlar"] if q[1] <= 0.8]
    assert len(aralash) == 1 and aralash[0][2] < natija["toliq"][0] - 0.1


def test_comparison_with_the_seed_is_computed(text, ikki_bosh):
    # seeds 0 and 1 reproduce the seed's printed numbers here; whatever differs is reported with
    # both values, and no seed may change its solved/stuck state
    assert "HOLATI BOSHQACHA" not in text
    hisobotlar = re.findall(r"  seed (\d): (hamma raqamlar seed matni bilan bir xil|farq bor - .*)", text)
    assert len(hisobotlar) == 6
    for _, hisobot in hisobotlar:
        if hisobot.startswith("farq bor"):
            assert "seed matnida" in hisobot and hisobot.endswith("yechilgan/qotgan holati bir xil")


def test_ikkalasi_preview(text, ikki_bosh):
    for s, natija in ikki_bosh.items():
        qiymat = float(re.search(rf"seed {s}, h = 2: ikkala nishon to'g'ri ([\d.]+)", text).group(1))
        assert qiymat <= min(natija["toliq"]) + 1e-3
