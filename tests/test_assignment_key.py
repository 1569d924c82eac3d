"""The answer key of the `multihead` assignment in plain form, and the checks of grading.tekshiruv against it.

grading.tekshiruv holds only salted hashes of these answers (so nothing in the released files or the
module can be grepped for them). Edit the answers or the hints here, then print the key to paste into
the module with:  .venv/bin/python tests/test_assignment_key.py
"""

import json
import math

import numpy as np
import pytest
import torch

from grading import tekshiruv as tk

# question -> (right answer, normalised; {common wrong answer: hint}; general hint; hints by right part)
ANSWERS = {
    "01": (8, {
        512: "d_model boshlar orasida bo'linadi, ko'paytirilmaydi.",
        64: "64 - butun d_model. Har bosh uning faqat bir bo'lagi bilan ishlaydi.",
    }, "Kirish eslatmasini qayta o'qing: d_model boshlar orasida qanday taqsimlanadi?", None),
    "02": ((4, 8, 10, 8), {
        (4, 10, 8, 8): "Bu view dan keyingi shakl: o'qlarni almashtirish (transpose) hali qilinmagan.",
        (4, 10, 64): "Bu proyeksiyadan keyingi shakl, hali boshlarga bo'linmagan.",
        (4, 8, 10, 64): "Har bosh butun d_model ni emas, faqat d_k ta ustunni oladi.",
    }, "Boshlarga bo'lish ikki qadam: view, keyin transpose. Har o'lcham nimani bildiradi?", None),
    "03": ((4, 8, 10, 10), {
        (4, 10, 10): "Har boshning O'Z (n x n) matritsasi bor: boshlar o'qi yo'qolmaydi.",
        (4, 8, 10, 8): "Bu Q yoki O ning shakli. Og'irliklar Q K^T dan chiqadi: so'rov x kalit.",
        (8, 10, 10): "Batch o'qi (B) ham saqlanadi.",
    }, "Og'irliklar = softmax(Q K^T): (.., n, d_k) @ (.., d_k, n) qanday shakl beradi?", None),
    "04": ((16640, 16640), {
        (16384, 16384): "Bias unutildi: har matritsaning d_model ta bias soni ham bor.",
        (12480, 12480): "To'rtta matritsa bor: W_q, W_k, W_v va W_o.",
    }, "W_q, W_k, W_v, W_o - har biri nechta son saqlaydi (bias bilan)?",
        ("h = 8 dagi son to'g'ri. Parametrlar soni h ga bog'liqmi?",
         "h = 2 dagi son to'g'ri. h = 8 da-chi? Parametrlar h ga qanday bog'liq?")),
    "05": ((192, 64), {
        (64, 64): "in_proj_weight da W_q, W_k, W_v uchalasi ustma-ust turadi.",
        (64, 192): "nn.Linear og'irligi (chiqish, kirish) tartibida: matritsalar qatorlar bo'ylab.",
        (3, 64, 64): "Uchta matritsa bitta 2 o'lchamli tensorda ustma-ust saqlanadi.",
        (256, 64): "W_o alohida turadi: out_proj.weight.",
    }, "in_proj_weight ichida qaysi matritsalar va qanday tartibda turadi?", None),
    "06": ((4, 10, 10), {
        (4, 8, 10, 10): "Sukut bo'yicha average_attn_weights=True: W boshlar O'RTACHASI, bosh o'qi yo'q.",
        (10, 4, 4): "batch_first=True berilgan: X (B, n, d) deb o'qiladi.",
        (8, 10, 10): "Sukut bo'yicha boshlar o'rtachalanadi, batch o'qi (B) esa qoladi.",
    }, "need_weights va average_attn_weights ning sukut qiymatlarini eslang.", None),
    "07": (2.83, {
        8.0: "8 = sqrt(d_model) = sqrt(64) (yoki ildizsiz d_k). Har bosh o'z d_k o'lchamida ishlaydi.",
        64.0: "Skor o'lchamning o'ziga emas, uning kvadrat ildiziga bo'linadi.",
        22.63: "Skor d_model * h ga bog'liq emas: har bosh o'z d_k o'lchamida ishlaydi.",
    }, "Bitta boshdagi skor qaysi uzunlikdagi vektorlarning skalyar ko'paytmasi?", None),
    "08": ((1.0, 8.0), {
        (8.0, 8.0): "Skor FLOP = h * 2 n^2 d_k: h oshganda d_k shuncha kamayadi.",
        (1.0, 1.0): "Har boshning o'z (n x n) og'irliklar matritsasi bor.",
        (8.0, 1.0): "Ikkalasi teskari: qaysi biri d_k ga, qaysi biri faqat n va h ga bog'liq?",
    }, "Har biri formulasini yozing: skor FLOP h * 2 n^2 d_k, og'irliklar soni esa?",
        ("FLOP ko'paytuvchisi to'g'ri. Og'irliklar matritsalari sonini sanang.",
         "Xotira ko'paytuvchisi to'g'ri. Skor FLOP da d_k = d_model / h ni hisobga oling.")),
    "09": ("b", {
        "a": "Bu F.scaled_dot_product_attention bool maskasining konvensiyasi (u yerda True = qatnashadi).",
        "c": "Kauzal maska attn_mask orqali beriladi, key_padding_mask emas.",
        "d": "Boshni o'chirish (ablation) maska emas: bosh chiqishi nolga ko'paytiriladi.",
    }, "key_padding_mask ning nomi nimani yashirish uchunligini aytadi.", None),
    "10": (((2, 5, 64), (2, 5, 9)), {
        ((2, 5, 64), (2, 8, 5, 9)): "Sukut bo'yicha average_attn_weights=True: boshlar o'rtachalanadi.",
        ((2, 5, 64), (2, 9, 5)): "W qatorlari so'rovlar, ustunlari kalitlar.",
    }, "Chiqish kimning uzunligida: so'rovnikimi yoki kalitnikimi? W esa (so'rov x kalit).",
        ("Chiqish shakli to'g'ri. W: sukut bo'yicha boshlar o'rtachasi, (so'rov x kalit).",
         "W shakli to'g'ri. Chiqishda har so'rov uchun bitta vektor bor.")),
    "11": ("d", {
        "a": "Boshsiz faqat bitta vazifa buzildi, ikkinchisi saqlandi: bosh kerak.",
        "b": "h = 1 tajribasi alohida savol; bu bosh o'chirilishi h = 1 haqida gapirmaydi.",
        "c": "Og'irlikka qarash va boshni o'chirishning farqi nimada? Seed 0 jadvalini qayta ko'ring.",
    }, "Boshni o'chirish og'irliklarga qarashdan nimasi bilan farq qiladi?", None),
    "12": ("a", {
        "b": "Parametrlar h ga bog'liq emas: d_model = 32 da hammasida 4224.",
        "c": "Skor FLOP h ga bog'liq emas: 2 n^2 d_model.",
        "d": "Mezon har qanday seed sonida ishlaydi; gap seedlar orasidagi tarqoqlikda.",
    }, "4-misoldagi seedlar natijasiga va juftlashgan farq jadvaliga qarang.", None),
}


def build_key() -> dict:
    key = {}
    for q, (right, wrong, general, part_hints) in ANSWERS.items():
        entry = {"togri": tk.izi(q, right), "maslahat": {tk.izi(q, w): m for w, m in wrong.items()},
                 "umumiy": general}
        if part_hints:
            entry["qismlar"] = [tk.izi(f"{q}.{k}", v) for k, v in enumerate(right)]
            entry["qism_maslahat"] = list(part_hints)
        key[q] = entry
    return key


def test_module_key_matches_plain_answers():
    assert tk._KALIT == build_key(), "regenerate: .venv/bin/python tests/test_assignment_key.py"


@pytest.mark.parametrize("q", sorted(ANSWERS))
def test_right_answer_is_right_and_wrong_answers_are_not(q):
    right, wrong, _, _ = ANSWERS[q]
    assert tk.togri_mi(q, right)
    for w in wrong:
        assert not tk.togri_mi(q, w)


def test_equivalent_forms_normalise_to_the_same_plain_value():
    assert tk.normal("02", torch.Size([4, 8, 10, 8])) == tk.normal("02", [4, 8, 10, 8]) == (4, 8, 10, 8)
    assert tk.normal("07", math.sqrt(8)) == tk.normal("07", 8 ** 0.5)
    assert tk.normal("07", torch.tensor(8.0).sqrt()) == tk.normal("07", math.sqrt(8))
    assert tk.normal("01", np.int64(8)) == tk.normal("01", torch.tensor(8)) == 8
    assert tk.normal("08", [1, 8]) == (1.0, 8.0)
    assert tk.normal("10", [torch.Size([2, 5, 64]), [2, 5, 9]]) == ((2, 5, 64), (2, 5, 9))
    text = tk.VARIANTLAR["09"]["b"]
    forms = ["b", "B", " b) ", "(B).", text.upper(), text.replace("'", "\u02bc"), text.replace("'", "\u2018")]
    for form in forms:
        assert tk.normal("09", form) == "b", form


def test_apostrophe_variants_and_unicode_forms_fold():
    assert tk.matn("E\u02bbTIBORSIZ") == tk.matn("e\u2019tiborsiz") == tk.matn("e`tiborsiz") == "e'tiborsiz"
    assert tk.matn("\uff21") == "a"  # full-width A, NFKC


@pytest.mark.parametrize("q, bad", [
    ("01", 8.0), ("01", True), ("01", "8"), ("02", "(4, 8, 10, 8)"), ("02", (4, 8.5, 10, 8)),
    ("04", (16640,)), ("07", "2.83"), ("07", float("nan")), ("09", "e"), ("09", 2), ("10", (1, 2)),
])
def test_wrong_kinds_are_rejected_with_an_uzbek_message(q, bad):
    with pytest.raises(tk.JavobXatosi, match=f"javob_{q}"):
        tk.normal(q, bad)


def test_rigged_objects_are_not_trusted():
    class Always(tuple):
        def __eq__(self, other):
            return True

        __hash__ = tuple.__hash__

    class Liar(int):
        def __eq__(self, other):
            return True

        __hash__ = int.__hash__

    with pytest.raises(tk.JavobXatosi):
        tk.normal("02", Always((1, 2)))
    with pytest.raises(tk.JavobXatosi):
        tk.normal("01", Liar(3))
    with pytest.raises(tk.JavobXatosi):
        tk.yangi(torch.zeros(2).as_subclass(type("T", (torch.Tensor,), {})))


def test_visible_check_prints_right_wrong_and_hints(capsys):
    tk.tekshir("07", 8 ** 0.5)
    tk.tekshir("07", 8)
    tk.tekshir("04", (16640, 4160))
    tk.tekshir("02", "shakl")
    out = capsys.readouterr().out
    assert "✅ To'g'ri" in out
    assert ANSWERS["07"][1][8.0] in out
    assert ANSWERS["04"][3][0] in out
    assert "❌ Javob turi mos emas" in out


def test_checks_swallow_warnings_and_stderr(capsys):
    import sys
    import warnings

    def noisy(x, h):
        warnings.warn("shovqin", UserWarning, stacklevel=1)
        print("shovqin", file=sys.stderr)
        B, n, d = x.shape
        return x.view(B, n, h, d // h).transpose(1, 2)

    tk.xato_1(noisy)
    captured = capsys.readouterr()
    assert "✅" in captured.out and captured.err == ""


def key_source(key: dict) -> str:
    """The key as Python source for grading/tekshiruv.py, lines short enough for ruff."""

    def text(s: str, indent: str) -> str:
        words, lines, line = s.split(" "), [], ""
        for w in words:
            if line and len(line) + len(w) > 80:
                lines.append(line)
                line = ""
            line += w + " "
        lines.append(line.rstrip(" "))
        if len(lines) == 1:
            return json.dumps(lines[0], ensure_ascii=False)
        parts = [json.dumps(x, ensure_ascii=False) for x in lines]
        return "(" + ("\n" + indent + " ").join(parts) + ")"

    out = ["_KALIT: dict[str, dict] = {"]
    for q, e in key.items():
        out.append(f'    "{q}": {{')
        out.append(f'        "togri": "{e["togri"]}",')
        out.append('        "maslahat": {')
        for h, m in e["maslahat"].items():
            out.append(f'            "{h}":')
            out.append(f'                {text(m, " " * 16)},')
        out.append("        },")
        out.append(f'        "umumiy": {text(e["umumiy"], " " * 8)},')
        if "qismlar" in e:
            out.append(f'        "qismlar": {json.dumps(e["qismlar"])},')
            out.append('        "qism_maslahat": [')
            for m in e["qism_maslahat"]:
                out.append(f"            {text(m, ' ' * 12)},")
            out.append("        ],")
        out.append("    },")
    out.append("}")
    return "\n".join(out)


if __name__ == "__main__":
    print(key_source(build_key()))
