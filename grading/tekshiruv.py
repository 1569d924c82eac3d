"""Instant, private checks for the `multihead` assignment (imported by its locked setup cells).

The student runs a test cell and reads, in Uzbek, whether the answer is right and, for the common wrong
answers, why. The answers themselves are never stored here: only salted hashes of their normalised form,
so neither the released notebook nor this module can be grepped for them.

Three layers, used by the notebooks' test cells:
- normalisation (`normal`): the student's object becomes a fresh plain Python value (int, float rounded to
  2 decimals, tuple of ints, a folded letter) after exact type checks; nothing of the student's object is
  compared or called except the built-in conversions;
- the visible check (`tekshir`, `xato_1` ... `xato_5`): prints right/wrong with a hint, never raises on
  a wrong answer (the hidden tests decide the grade);
- the record (`qayd`, `qayd_tensor`): one line `KURS-NATIJA {json}` per hidden test, the normalised answer
  or a drill's outputs on the hidden inputs, so a grader outside the kernel can re-check them against
  the lines the source notebooks print (see `grading.natija`).

Checks run their code under `jim()`: warnings and stderr writes are swallowed, because nbgrader 0.9.6 gives
a test cell zero points for any stderr output (`nbgrader.utils.determine_grade`).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import re
import unicodedata
import warnings

import torch

MARKER = "KURS-NATIJA"
_SALT = "attention-kursi/multihead/v1"

# Apostrophe look-alikes a Uzbek keyboard or phone produces for o', g', tutuq belgisi.
_APOSTROPHES = "\u02bb\u02bc\u2018\u2019\u0060\u00b4\u2032\u02b9\u02bd\uff07"
_APOSTROPHE_TABLE = str.maketrans({ch: "'" for ch in _APOSTROPHES})


class JavobXatosi(AssertionError):
    """An answer of the wrong kind (type, length); the message says what was expected, in Uzbek."""


# ---------------------------------------------------------------------------------------------------
# normalisation: student object -> fresh plain value


def matn(s: str) -> str:
    """Unicode NFKC, apostrophe variants folded to ', case folded, spaces collapsed, outer ( ) . stripped."""
    s = unicodedata.normalize("NFKC", s).translate(_APOSTROPHE_TABLE).casefold()
    s = re.sub(r"\s+", " ", s).strip()
    return s.strip("().: ").strip()


def _integer(x, nom: str) -> int:
    if type(x) is int:
        return int(x)
    if type(x) is bool:
        raise JavobXatosi(f"{nom}: butun son kerak, sizda bool ({x!r}).")
    if type(x) is float:
        hint = " (// bilan butun bo'lish int beradi)" if x.is_integer() else ""
        raise JavobXatosi(f"{nom}: butun son (int) kerak, sizda float {x!r}{hint}.")
    if type(x) is torch.Tensor and x.numel() == 1 and not x.dtype.is_floating_point and x.dtype != torch.bool:
        return int(x.detach().reshape(()).item())
    if type(x).__module__ == "numpy" and type(x).__name__.startswith(("int", "uint")):
        return int(x)
    raise JavobXatosi(f"{nom}: butun son (int) kerak, sizda {type(x).__name__}.")


butun = _integer  # public: a plain int from the student's object (used by the hidden drill tests)


def _number(x, nom: str) -> float:
    if type(x) is bool:
        raise JavobXatosi(f"{nom}: son kerak, sizda bool ({x!r}).")
    if type(x) in (int, float):
        v = float(x)
    elif type(x) is torch.Tensor and x.numel() == 1 and x.dtype != torch.bool:
        v = float(x.detach().reshape(()).item())
    elif type(x).__module__ == "numpy" and type(x).__name__.startswith(("int", "uint", "float")):
        v = float(x)
    else:
        raise JavobXatosi(f"{nom}: son (int yoki float) kerak, sizda {type(x).__name__}.")
    if not math.isfinite(v):
        raise JavobXatosi(f"{nom}: chekli son kerak, sizda {v}.")
    return round(v, 2) + 0.0  # + 0.0 turns -0.0 into 0.0


def _sequence(x, nom: str, what: str) -> list:
    if type(x) in (tuple, list, torch.Size):  # exact types: their iteration is the built-in one
        return list(x)
    raise JavobXatosi(f"{nom}: {what} kerak (tuple, list yoki torch.Size), sizda {type(x).__name__}.")


def _shape(x, nom: str) -> tuple[int, ...]:
    items = _sequence(x, nom, "shakl")
    if not items:
        raise JavobXatosi(f"{nom}: bo'sh shakl, kamida bitta o'lcham kerak.")
    return tuple(_integer(e, f"{nom} ichidagi o'lcham") for e in items)


def _pair(x, nom: str, part) -> tuple:
    items = _sequence(x, nom, "ikki elementli juftlik")
    if len(items) != 2:
        raise JavobXatosi(f"{nom}: ikki elementli juftlik kerak, sizda {len(items)} ta element.")
    return tuple(part(e, f"{nom}[{k}]") for k, e in enumerate(items))


def _letter(x, nom: str, options: dict[str, str]) -> str:
    if type(x) is not str:
        raise JavobXatosi(f"{nom}: bitta harf (str) kerak, masalan 'A'; sizda {type(x).__name__}.")
    s = matn(x)
    for letter, text in options.items():
        if s == letter or s == matn(text):
            return letter
    letters = ", ".join(k.upper() for k in options)
    raise JavobXatosi(f"{nom}: variantlardan birining harfi kerak ({letters}); sizda {x!r}.")


# Options of the multiple-choice questions (letters lower case, as normalised).
VARIANTLAR = {
    "09": {
        "a": "Bu pozitsiya qatnashadi: unga e'tibor beriladi",
        "b": "Bu pozitsiya e'tiborsiz qoldiriladi (PAD)",
        "c": "Kelajakdagi pozitsiyalar yopiladi (kauzal maska)",
        "d": "Shu bosh o'chiriladi",
    },
    "11": {
        "a": "Bu bosh modelga umuman kerak emas",
        "b": "Model bitta bosh (h = 1) bilan ham shu vazifani yechgan bo'lardi",
        "c": "Boshning og'irliklari qayerga qarashini ko'rsatadi, xolos",
        "d": "Shu bosh aynan o'sha bog'lanishni bajaradi: uning roli sabab sifatida isbotlanadi",
    },
    "12": {
        "a": "Natija ikki cho'qqili (seed yo yechadi, yo ~0.4 da qotadi) va 4 seed kam: farqning SE si katta",
        "b": "Bosh soni oshsa parametrlar soni oshadi, shuning uchun taqqoslash adolatsiz",
        "c": "h = 4 da skor FLOP ko'proq, shuning uchun natijalarni solishtirib bo'lmaydi",
        "d": "2*SE mezoni faqat 100 dan ortiq seedda ishlaydi",
    },
}

# How each question's answer is normalised.
_KINDS = {
    "01": lambda x, n: _integer(x, n),
    "02": lambda x, n: _shape(x, n),
    "03": lambda x, n: _shape(x, n),
    "04": lambda x, n: _pair(x, n, _integer),
    "05": lambda x, n: _shape(x, n),
    "06": lambda x, n: _shape(x, n),
    "07": lambda x, n: _number(x, n),
    "08": lambda x, n: _pair(x, n, _number),
    "09": lambda x, n: _letter(x, n, VARIANTLAR["09"]),
    "10": lambda x, n: _pair(x, n, _shape),
    "11": lambda x, n: _letter(x, n, VARIANTLAR["11"]),
    "12": lambda x, n: _letter(x, n, VARIANTLAR["12"]),
}


def normal(savol: str, javob):
    """The student's answer to question `savol` ("01".."12") as a fresh plain value, or JavobXatosi."""
    with jim():
        return _KINDS[savol](javob, f"javob_{savol}")


def _plain(value):
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def izi(key: str, value) -> str:
    """Salted hash of a normalised value (key: the question, or "04.0" for a part of a pair)."""
    text = json.dumps(_plain(value), ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(f"{_SALT}|{key}|{text}".encode()).hexdigest()[:20]


# ---------------------------------------------------------------------------------------------------
# the key: hashes of the right answers, of parts of pairs, and of the common wrong answers with a hint

# Generated by `.venv/bin/python tests/test_assignment_key.py` from the plain answers kept there.
_KALIT: dict[str, dict] = {
    "01": {
        "togri": "8f6d38aa40a69b088964",
        "maslahat": {
            "83bff85e990f5078dcd4":
                "d_model boshlar orasida bo'linadi, ko'paytirilmaydi.",
            "365f5754d0c2df61fee8":
                "64 - butun d_model. Har bosh uning faqat bir bo'lagi bilan ishlaydi.",
        },
        "umumiy": "Kirish eslatmasini qayta o'qing: d_model boshlar orasida qanday taqsimlanadi?",
    },
    "02": {
        "togri": "007a0a36d1a2fbb1a356",
        "maslahat": {
            "876831e6d7dff26e112a":
                "Bu view dan keyingi shakl: o'qlarni almashtirish (transpose) hali qilinmagan.",
            "d8c1b57037b3832eccee":
                "Bu proyeksiyadan keyingi shakl, hali boshlarga bo'linmagan.",
            "9920bed3527aa3ec8e22":
                "Har bosh butun d_model ni emas, faqat d_k ta ustunni oladi.",
        },
        "umumiy": ("Boshlarga bo'lish ikki qadam: view, keyin transpose. Har o'lcham nimani "
         "bildiradi?"),
    },
    "03": {
        "togri": "0b296fffb0d381932cc1",
        "maslahat": {
            "fdc099ccdee65fc80720":
                "Har boshning O'Z (n x n) matritsasi bor: boshlar o'qi yo'qolmaydi.",
            "f477db2fd6363948eca8":
                "Bu Q yoki O ning shakli. Og'irliklar Q K^T dan chiqadi: so'rov x kalit.",
            "da9dee61e20571d84f84":
                "Batch o'qi (B) ham saqlanadi.",
        },
        "umumiy": "Og'irliklar = softmax(Q K^T): (.., n, d_k) @ (.., d_k, n) qanday shakl beradi?",
    },
    "04": {
        "togri": "1eaea27820f1d1dd9864",
        "maslahat": {
            "0cf4b319ff7b58ecb460":
                "Bias unutildi: har matritsaning d_model ta bias soni ham bor.",
            "1604cd7b8f35b162db99":
                "To'rtta matritsa bor: W_q, W_k, W_v va W_o.",
        },
        "umumiy": "W_q, W_k, W_v, W_o - har biri nechta son saqlaydi (bias bilan)?",
        "qismlar": ["c5ee3cc4ce7b91fea9d0", "d2d40d39841cf94a0c6c"],
        "qism_maslahat": [
            "h = 8 dagi son to'g'ri. Parametrlar soni h ga bog'liqmi?",
            "h = 2 dagi son to'g'ri. h = 8 da-chi? Parametrlar h ga qanday bog'liq?",
        ],
    },
    "05": {
        "togri": "c8e32b6983c2da42ac4e",
        "maslahat": {
            "7eb3bf62d618a97b18a4":
                "in_proj_weight da W_q, W_k, W_v uchalasi ustma-ust turadi.",
            "fd600edf6733de8ae0ac":
                "nn.Linear og'irligi (chiqish, kirish) tartibida: matritsalar qatorlar bo'ylab.",
            "7436bfca283b9f640610":
                "Uchta matritsa bitta 2 o'lchamli tensorda ustma-ust saqlanadi.",
            "f19975c4827010a71104":
                "W_o alohida turadi: out_proj.weight.",
        },
        "umumiy": "in_proj_weight ichida qaysi matritsalar va qanday tartibda turadi?",
    },
    "06": {
        "togri": "96cbb24c2870e945eb11",
        "maslahat": {
            "fb473881118292cfb90f":
                "Sukut bo'yicha average_attn_weights=True: W boshlar O'RTACHASI, bosh o'qi yo'q.",
            "b7ef6811d606d00d520c":
                "batch_first=True berilgan: X (B, n, d) deb o'qiladi.",
            "dc5a515c8087724d9cb2":
                "Sukut bo'yicha boshlar o'rtachalanadi, batch o'qi (B) esa qoladi.",
        },
        "umumiy": "need_weights va average_attn_weights ning sukut qiymatlarini eslang.",
    },
    "07": {
        "togri": "bbe21ec26fc2bdb22eff",
        "maslahat": {
            "98664c2a73e84168eff6":
                ("8 = sqrt(d_model) = sqrt(64) (yoki ildizsiz d_k). Har bosh o'z d_k o'lchamida "
                 "ishlaydi."),
            "ba98b905739ace66beea":
                "Skor o'lchamning o'ziga emas, uning kvadrat ildiziga bo'linadi.",
            "01bff81700592ac41c89":
                "Skor d_model * h ga bog'liq emas: har bosh o'z d_k o'lchamida ishlaydi.",
        },
        "umumiy": "Bitta boshdagi skor qaysi uzunlikdagi vektorlarning skalyar ko'paytmasi?",
    },
    "08": {
        "togri": "aa63995d9b1a1b6a7c98",
        "maslahat": {
            "affe0c3f010933beeb8f":
                "Skor FLOP = h * 2 n^2 d_k: h oshganda d_k shuncha kamayadi.",
            "3d00d2bde4d9901be913":
                "Har boshning o'z (n x n) og'irliklar matritsasi bor.",
            "d067ed456203e80d100b":
                "Ikkalasi teskari: qaysi biri d_k ga, qaysi biri faqat n va h ga bog'liq?",
        },
        "umumiy": "Har biri formulasini yozing: skor FLOP h * 2 n^2 d_k, og'irliklar soni esa?",
        "qismlar": ["40e4e3d6b19049401dcc", "e34771f5bb9145658c6c"],
        "qism_maslahat": [
            "FLOP ko'paytuvchisi to'g'ri. Og'irliklar matritsalari sonini sanang.",
            "Xotira ko'paytuvchisi to'g'ri. Skor FLOP da d_k = d_model / h ni hisobga oling.",
        ],
    },
    "09": {
        "togri": "3afc2b7dc2fd0bfb4184",
        "maslahat": {
            "54d83092795a0a12d794":
                ("Bu F.scaled_dot_product_attention bool maskasining konvensiyasi (u yerda True = "
                 "qatnashadi)."),
            "3478da41e148883e178b":
                "Kauzal maska attn_mask orqali beriladi, key_padding_mask emas.",
            "7c45946e063e3496ae0f":
                "Boshni o'chirish (ablation) maska emas: bosh chiqishi nolga ko'paytiriladi.",
        },
        "umumiy": "key_padding_mask ning nomi nimani yashirish uchunligini aytadi.",
    },
    "10": {
        "togri": "0623320c79fda0b3e281",
        "maslahat": {
            "200dd50decc2bd5ac1c1":
                "Sukut bo'yicha average_attn_weights=True: boshlar o'rtachalanadi.",
            "1b7f3ab6839d78facc96":
                "W qatorlari so'rovlar, ustunlari kalitlar.",
        },
        "umumiy": ("Chiqish kimning uzunligida: so'rovnikimi yoki kalitnikimi? W esa (so'rov x "
         "kalit)."),
        "qismlar": ["662adc9b47bbceaf1848", "4114ac8903b546f4065c"],
        "qism_maslahat": [
            "Chiqish shakli to'g'ri. W: sukut bo'yicha boshlar o'rtachasi, (so'rov x kalit).",
            "W shakli to'g'ri. Chiqishda har so'rov uchun bitta vektor bor.",
        ],
    },
    "11": {
        "togri": "9cdb95346f381db001bd",
        "maslahat": {
            "d2841bcf338523387162":
                "Boshsiz faqat bitta vazifa buzildi, ikkinchisi saqlandi: bosh kerak.",
            "fa610e77f9b1579972c4":
                "h = 1 tajribasi alohida savol; bu bosh o'chirilishi h = 1 haqida gapirmaydi.",
            "ac1c1c4dffa7aa583f6d":
                ("Og'irlikka qarash va boshni o'chirishning farqi nimada? Seed 0 jadvalini qayta "
                 "ko'ring."),
        },
        "umumiy": "Boshni o'chirish og'irliklarga qarashdan nimasi bilan farq qiladi?",
    },
    "12": {
        "togri": "5de40591b14ec457d3b3",
        "maslahat": {
            "bd26133985ca85c6c93b":
                "Parametrlar h ga bog'liq emas: d_model = 32 da hammasida 4224.",
            "ee901fcd95d82ff9b301":
                "Skor FLOP h ga bog'liq emas: 2 n^2 d_model.",
            "1da83077e4f23f896a32":
                "Mezon har qanday seed sonida ishlaydi; gap seedlar orasidagi tarqoqlikda.",
        },
        "umumiy": "4-misoldagi seedlar natijasiga va juftlashgan farq jadvaliga qarang.",
    },
}


def togri_mi(savol: str, qiymat) -> bool:
    """Whether a normalised answer is right (compares hashes of plain values only)."""
    return izi(savol, qiymat) == _KALIT[savol]["togri"]


def tekshir(savol: str, javob) -> None:
    """Visible check of a question: prints right/wrong in Uzbek, with a hint for common mistakes."""
    nom = f"javob_{savol}"
    try:
        qiymat = normal(savol, javob)
    except JavobXatosi as exc:
        print(f"❌ Javob turi mos emas. {exc}")
        return
    kalit = _KALIT[savol]
    shown = json.dumps(_plain(qiymat), ensure_ascii=False)
    if izi(savol, qiymat) == kalit["togri"]:
        print(f"✅ To'g'ri! {nom} = {shown}")
        return
    print(f"❌ Hali to'g'ri emas: {nom} = {shown}")
    hint = kalit["maslahat"].get(izi(savol, qiymat))
    if hint is None and "qismlar" in kalit:
        parts = zip(qiymat, kalit["qismlar"], strict=True)
        right = [izi(f"{savol}.{k}", v) == h for k, (v, h) in enumerate(parts)]
        hint = kalit["qism_maslahat"][right.index(True)] if right.count(True) == 1 else None
    print(f"   Maslahat: {hint or kalit['umumiy']}")


# ---------------------------------------------------------------------------------------------------
# helpers shared by the visible and the hidden drill checks


@contextlib.contextmanager
def jim():
    """Swallow warnings and stderr writes: nbgrader 0.9.6 fails a test cell on any stderr output."""
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


def yangi(t, nom: str = "natija") -> torch.Tensor:
    """A fresh float64 copy of a tensor the student returned (exact type checked, no subclasses)."""
    if type(t) is not torch.Tensor:
        raise JavobXatosi(f"{nom}: torch.Tensor kerak, sizda {type(t).__name__}.")
    with jim():
        fresh = t.detach().to("cpu").clone()
    return fresh.to(torch.float64) if fresh.dtype != torch.bool else fresh


def shakl_tekshir(t: torch.Tensor, kutilgan: tuple, nom: str = "natija") -> None:
    got = tuple(int(s) for s in t.shape)
    if got != tuple(kutilgan):
        raise JavobXatosi(f"{nom}: kutilgan shakl {tuple(kutilgan)}, chiqdi {got}.")


def qayd(test_id: str, qiymat) -> None:
    """Print the one line an outside grader re-checks: the normalised answer of a hidden test."""
    print(f"{MARKER} " + json.dumps({"id": test_id, "qiymat": _plain(qiymat)}, ensure_ascii=True,
                                    separators=(",", ":")))


def qayd_tensor(test_id: str, t: torch.Tensor) -> None:
    """Print a drill's output on the hidden inputs: shape and values rounded to 5 decimals."""
    t = yangi(t)
    qiymat = {"shakl": list(t.shape), "sonlar": [round(float(v), 5) + 0.0 for v in t.flatten().tolist()]}
    qayd(test_id, qiymat)


def records_match(expected: list[str], got: list[str], tol: float = 1e-4) -> bool:
    """Whether a test cell's record lines agree with the reference ones (the source notebook's).

    Numbers may differ by `tol` (an equally right drill repair can differ from the reference in the 7th
    digit, and rounding to 5 decimals can turn that into 1e-5); everything else must be equal. Plain
    values only: the lines are parsed with json, outside the student's kernel.
    """

    def same(a, b) -> bool:
        if type(a) in (int, float) and type(b) in (int, float):
            return abs(a - b) <= tol
        if type(a) is list and type(b) is list:
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
        if type(a) is dict and type(b) is dict:
            return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        return type(a) is type(b) and a == b

    def parse(line: str):
        if not line.startswith(MARKER + " "):
            raise ValueError(line[:80])
        return json.loads(line[len(MARKER) + 1:])

    try:
        return len(expected) == len(got) and all(
            same(parse(e), parse(g)) for e, g in zip(expected, got, strict=True))
    except ValueError:  # json.JSONDecodeError is a ValueError
        return False


def _differ(expected: torch.Tensor, got: torch.Tensor) -> float:
    return float((expected.to(torch.float64) - got.to(torch.float64)).abs().max())


def _report(nom: str, expected: torch.Tensor, got: torch.Tensor, joy: str, tol: float, hint: str) -> bool:
    farq = _differ(expected, got)
    if farq <= tol:
        print(f"✅ To'g'ri! {nom}: shakl {tuple(got.shape)}, kutilgandan maks farq {farq:.1e}")
        return True
    print(f"❌ {nom}: shakl {tuple(got.shape)} to'g'ri, lekin qiymatlar boshqa (maks farq {farq:.3g}).")
    print(f"   {joy}")
    print(f"   Maslahat: {hint}")
    return False


def _fmt(t: torch.Tensor) -> str:
    return "[" + ", ".join(f"{float(v):g}" for v in t.flatten().tolist()) + "]"


def _call(fn, *args):
    with jim():
        return fn(*args)


def mha_ref(mha: torch.nn.MultiheadAttention, q: torch.Tensor, kv: torch.Tensor, pad=None):
    """Multi-head attention by its definition, head by head in float64, from the module's parameters.

    q (B, n_q, d), kv (B, n_k, d), pad (B, n_k) bool with True = PAD; returns the output (B, n_q, d)
    and each head's weights (B, h, n_q, n_k). The reference of the drill checks.
    """
    d, h = mha.embed_dim, mha.num_heads
    d_k = d // h
    f64 = torch.float64
    W = mha.in_proj_weight.detach().to(f64)
    b = mha.in_proj_bias.detach().to(f64) if mha.in_proj_bias is not None else torch.zeros(3 * d, dtype=f64)
    q, kv = q.detach().to(f64), kv.detach().to(f64)
    outs, weights = [], []
    for i in range(h):
        rows = slice(i * d_k, (i + 1) * d_k)
        Qi = q @ W[:d][rows].T + b[:d][rows]
        Ki = kv @ W[d:2 * d][rows].T + b[d:2 * d][rows]
        Vi = kv @ W[2 * d:][rows].T + b[2 * d:][rows]
        s = Qi @ Ki.transpose(1, 2) / math.sqrt(d_k)
        if pad is not None:
            s = s.masked_fill(pad[:, None, :], float("-inf"))
        w = torch.softmax(s, dim=-1)
        weights.append(w)
        outs.append(w @ Vi)
    out = torch.cat(outs, dim=-1) @ mha.out_proj.weight.detach().to(f64).T
    if mha.out_proj.bias is not None:
        out = out + mha.out_proj.bias.detach().to(f64)
    return out, torch.stack(weights, dim=1)


# ---------------------------------------------------------------------------------------------------
# visible drill checks: a small fixed input, the definition as the reference, what differs and by how much


_HINT_1 = ("view(B, h, n, d_k) xotiradagi tartibni noto'g'ri kesadi: tokenlar va boshlar aralashadi. "
           "Avval har tokenni h bo'lakka bo'ling, keyin o'qlarni almashtiring.")
_HINT_2 = ("(B, h, n, d_k) ni to'g'ridan-to'g'ri reshape qilish bir boshning turli tokenlarini ulaydi. "
           "Har token uchun uning h ta bosh chiqishi yonma-yon turishi kerak.")
_HINT_3 = ("nn.MultiheadAttention sukut bo'yicha kirishni (n, B, d) deb o'qiydi: B va n almashadi. "
           "Kursdagi (B, n, d) konvensiyasini modulga ayting.")
_HINT_4 = ("nn.MultiheadAttention da key_padding_mask ning True qiymati 'bu kalitga qarama' degani. "
           "Teskari konvensiya (True = qatnashadi) F.scaled_dot_product_attention niki.")
_HINT_5 = ("sukut bo'yicha mha boshlar O'RTACHASINI (B, n, n) qaytaradi, 0-bosh emas; "
           "har boshning o'z og'irliklari kerak.")


def _visible(hint: str):
    """A wrong kind of result (type, shape) is printed with the drill's hint instead of raised."""

    def wrap(check):
        def run(fn) -> None:
            try:
                check(fn)
            except JavobXatosi as exc:
                print(f"❌ {exc}")
                print(f"   Maslahat: {hint}")

        run.__doc__ = check.__doc__
        run.__name__ = check.__name__
        return run

    return wrap


@_visible(_HINT_1)
def xato_1(boshlarga_bol) -> None:
    """boshlarga_bol(x, h): (B, n, d_model) -> (B, h, n, d_k), i-bosh = x[..., i*d_k:(i+1)*d_k]."""
    B, n, d, h = 2, 3, 8, 4
    d_k = d // h
    x = torch.arange(B * n * d, dtype=torch.float32).view(B, n, d)
    y = yangi(_call(boshlarga_bol, x, h), "boshlarga_bol natijasi")
    shakl_tekshir(y, (B, h, n, d_k), "boshlarga_bol natijasi")
    expected = torch.empty(B, h, n, d_k, dtype=torch.float64)
    for i in range(h):
        expected[:, i] = x[:, :, i * d_k:(i + 1) * d_k]
    bad = [(bb, i, t) for bb in range(B) for i in range(h) for t in range(n)
           if not torch.equal(expected[bb, i, t], y[bb, i, t])]
    joy = ""
    if bad:
        bb, i, t = bad[0]
        joy = (f"{i}-bosh, {t}-token: kutilgan x[{bb}, {t}, {i * d_k}:{(i + 1) * d_k}] = "
               f"{_fmt(expected[bb, i, t])}, chiqdi {_fmt(y[bb, i, t])}")
    _report("boshlarga_bol", expected, y, joy, 0.0, _HINT_1)


@_visible(_HINT_2)
def xato_2(boshlarni_ula) -> None:
    """boshlarni_ula(O): (B, h, n, d_k) -> (B, n, h*d_k), i-bosh ustunlari [i*d_k:(i+1)*d_k]."""
    B, h, n, d_k = 2, 4, 3, 2
    O = torch.arange(B * h * n * d_k, dtype=torch.float32).view(B, h, n, d_k)
    y = yangi(_call(boshlarni_ula, O), "boshlarni_ula natijasi")
    shakl_tekshir(y, (B, n, h * d_k), "boshlarni_ula natijasi")
    expected = torch.cat([O[:, i] for i in range(h)], dim=-1).to(torch.float64)
    bad = [(bb, t) for bb in range(B) for t in range(n) if not torch.equal(expected[bb, t], y[bb, t])]
    joy = ""
    if bad:
        bb, t = bad[0]
        joy = (f"{t}-token: kutilgan [O[{bb}, 0, {t}], ..., O[{bb}, {h - 1}, {t}]] ulangan = "
               f"{_fmt(expected[bb, t])}, chiqdi {_fmt(y[bb, t])}")
    _report("boshlarni_ula", expected, y, joy, 0.0, _HINT_2)


@_visible(_HINT_3)
def xato_3(yarat_mha) -> None:
    """yarat_mha(d_model, h): nn.MultiheadAttention that reads (B, n, d)."""
    d, h = 16, 4
    mha = _call(yarat_mha, d, h)
    if not isinstance(mha, torch.nn.MultiheadAttention):
        print(f"❌ yarat_mha nn.MultiheadAttention qaytarishi kerak, sizda {type(mha).__name__}.")
        return
    if (mha.embed_dim, mha.num_heads) != (d, h):
        print(f"❌ yarat_mha({d}, {h}): kutilgan embed_dim={d}, num_heads={h}; "
              f"chiqdi embed_dim={mha.embed_dim}, num_heads={mha.num_heads}.")
        return
    g = torch.Generator().manual_seed(3)
    x = torch.randn(2, 5, d, generator=g)
    with torch.no_grad():
        out = yangi(_call(mha, x, x, x)[0], "mha chiqishi")
        shakl_tekshir(out, (2, 5, d), "mha(X, X, X) chiqishi (X: (B=2, n=5, d=16))")
        alone = torch.cat([yangi(_call(mha, x[b:b + 1], x[b:b + 1], x[b:b + 1])[0]) for b in range(2)])
    joy = ("Har jumla (batch elementi) mustaqil bo'lishi kerak: mha(X)[b] = mha(X[b:b+1]). "
           "Sizda jumlalar bir-biriga aralashdi.")
    _report("yarat_mha", alone, out, joy, 1e-5, _HINT_3)


def _as_pad(mask: torch.Tensor, nom: str) -> torch.Tensor:
    """key_padding_mask in the True = PAD form: bool as is, float additive (-inf = PAD, 0 = token)."""
    if mask.dtype == torch.bool:
        return mask
    if not torch.all(torch.isneginf(mask) | (mask == 0)):
        raise JavobXatosi(f"{nom}: float maska faqat 0 va -inf dan iborat bo'lsin (yoki bool maska).")
    return torch.isneginf(mask)


@_visible(_HINT_4)
def xato_4(pad_maska) -> None:
    """pad_maska(X_ids, PAD): key_padding_mask (B, n) for nn.MultiheadAttention, True = PAD."""
    PAD = 0
    X_ids = torch.tensor([[5, 3, 7, 2, 0, 0], [4, 1, 0, 0, 0, 0]])
    got = _as_pad(yangi(_call(pad_maska, X_ids, PAD), "pad_maska natijasi"), "pad_maska natijasi")
    shakl_tekshir(got, tuple(X_ids.shape), "pad_maska natijasi")
    expected = torch.tensor([[False] * 4 + [True] * 2, [False] * 2 + [True] * 4])
    farq = int((got != expected).sum())
    if farq == 0:
        print("✅ To'g'ri! pad_maska: PAD joylarida True (e'tiborsiz), tokenlarda False")
        return
    print(f"❌ pad_maska: {farq} ta pozitsiya noto'g'ri (jami {expected.numel()}).")
    print(f"   X_ids[1] = {X_ids[1].tolist()}, PAD = {PAD}")
    print(f"   kutilgan: {expected[1].int().tolist()}, chiqdi: {got[1].int().tolist()}")
    print(f"   Maslahat: {_HINT_4}")


@_visible(_HINT_5)
def xato_5(bosh_ogirliklari) -> None:
    """bosh_ogirliklari(mha, x): each head's weights (B, h, n, n)."""
    torch.manual_seed(5)
    mha = torch.nn.MultiheadAttention(16, 4, batch_first=True)
    x = torch.randn(2, 5, 16, generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        W = yangi(_call(bosh_ogirliklari, mha, x), "bosh_ogirliklari natijasi")
        shakl_tekshir(W, (2, 4, 5, 5), "bosh_ogirliklari natijasi (B=2, h=4, n=5)")
        expected = mha_ref(mha, x, x)[1]
    joy = (f"0-bosh, 0-so'rov: kutilgan {_fmt(expected[0, 0, 0].round(decimals=3))}, "
           f"chiqdi {_fmt(W[0, 0, 0].round(decimals=3))}")
    _report("bosh_ogirliklari", expected, W, joy, 1e-5, _HINT_5)
