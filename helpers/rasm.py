"""Rasmlar: matplotlib rasmini PNG qilib saqlash va izohi bilan ko'rsatish, oddiy blok-diagrammalar.

Rasmlar ishlayotgan daftar yonidagi `rasmlar/` papkasiga tushadi; KURS_RASMLAR boshqa papkani tanlaydi.
Ekransiz (headless) ishlaydi: matplotlib backend i daftar ichida inline, boshqa joyda Agg.
"""

import os
from pathlib import Path

import matplotlib

if "MPLBACKEND" not in os.environ and "ipykernel" not in matplotlib.get_backend().lower():
    try:
        from IPython import get_ipython

        _ichida = get_ipython() is not None
    except ImportError:
        _ichida = False
    if not _ichida:
        matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyBboxPatch  # noqa: E402

RASMLAR_OZGARUVCHISI = "KURS_RASMLAR"

# Blok turlari va ranglari: (to'ldirish, chegara)
TURLAR = {
    "manba": ("#dbe8fb", "#1a73e8"),   # kirish, manba ma'lumot
    "xizmat": ("#fde7d6", "#e8710a"),  # oraliq ishlov (masalan, RNN zanjiri)
    "qayta": ("#dcf1e1", "#188038"),   # yangi yo'l, natija
}


def rasmlar_papkasi() -> Path:
    """Rasmlar saqlanadigan papka (kerak bo'lsa yaratiladi)."""
    papka = Path(os.environ.get(RASMLAR_OZGARUVCHISI) or Path.cwd() / "rasmlar")
    papka.mkdir(parents=True, exist_ok=True)
    return papka


def _png_nomi(nom: str) -> str:
    if not isinstance(nom, str) or not nom.strip():
        raise ValueError(f"rasm nomi bo'sh bo'lmagan matn bo'lishi kerak, berilgan: {nom!r}")
    if Path(nom).name != nom:
        raise ValueError(f"rasm nomi papkasiz fayl nomi bo'lishi kerak, berilgan: {nom!r}")
    return nom if nom.lower().endswith(".png") else f"{nom}.png"


def _korsat(yol: Path, izoh: str | None) -> None:
    """PNG ni izohi bilan ko'rsatadi: daftarda rasm + kursiv izoh, terminalda fayl yo'li."""
    try:
        from IPython import get_ipython
        from IPython.display import Image, Markdown, display
    except ImportError:
        get_ipython = None
    if get_ipython is None or get_ipython() is None:
        print(f"[rasm] {yol}" + (f" — {izoh}" if izoh else ""))
        return
    display(Image(filename=str(yol)))
    if izoh:
        display(Markdown(f"*{izoh}*"))


def fig(nom: str, caption: str | None = None) -> None:
    """Joriy matplotlib rasmini `rasmlar/<nom>` ga PNG qilib saqlaydi, izohi bilan ko'rsatadi va yopadi.

    Hech narsa qaytarmaydi: katak oxiridagi chaqiriq ortiqcha qator chop etmasin (fayl: rasmlar_papkasi() / nom).
    Dars: notebooks/01_attention_asoslari.ipynb (birinchi ishlatilishi).
    """
    fayl = _png_nomi(nom)
    if not plt.get_fignums():
        raise RuntimeError(f"fig({fayl!r}): saqlash uchun ochiq rasm yo'q — avval plt.subplots() bilan chizing")
    rasm = plt.gcf()
    yol = rasmlar_papkasi() / fayl
    rasm.savefig(yol, dpi=110, bbox_inches="tight", facecolor="white")
    plt.close(rasm)
    _korsat(yol, caption)


def _blok_chiz(ax, nom: str, joy: tuple) -> FancyBboxPatch:
    if not (isinstance(joy, tuple | list) and len(joy) == 5):
        raise ValueError(f"{nom!r} bloki (x, y, eni, bo'yi, turi) ko'rinishida bo'lishi kerak, berilgan: {joy!r}")
    x, y, eni, boyi, turi = joy
    if turi not in TURLAR:
        raise ValueError(f"{nom!r} blokining turi noma'lum: {turi!r}; mumkin: {', '.join(TURLAR)}")
    toldirish, chegara = TURLAR[turi]
    blok = FancyBboxPatch((x, y), eni, boyi, boxstyle="round,pad=0.02,rounding_size=0.08",
                          facecolor=toldirish, edgecolor=chegara, linewidth=1.8)
    ax.add_patch(blok)
    matn = nom.replace("\\n", "\n")  # matnga yozilgan "\n" ham qatorni bo'ladi
    ax.text(x + eni / 2, y + boyi / 2, matn, ha="center", va="center", fontsize=11, wrap=True)
    return blok


def diagramma(qutilar: dict, boglanishlar: list, nom: str, izoh: str | None = None) -> None:
    """Bloklar va strelkalardan iborat sxema chizadi, PNG qilib saqlaydi va izohi bilan ko'rsatadi.

    qutilar: {nom: (x, y, eni, bo'yi, turi)}, turi "manba", "xizmat" yoki "qayta"; nomdagi \\n qatorni bo'ladi.
    boglanishlar: [(qayerdan, qayerga), ...] — qutilar nomlari.
    Dars: notebooks/01_attention_asoslari.ipynb (yo'l uzunligi sxemasi).
    """
    fayl = _png_nomi(nom)
    if not qutilar:
        raise ValueError("diagramma(): qutilar bo'sh — kamida bitta blok kerak")
    for qayerdan, qayerga in boglanishlar:
        for uch in (qayerdan, qayerga):
            if uch not in qutilar:
                raise ValueError(f"bog'lanish ({qayerdan!r} -> {qayerga!r}) noma'lum blokka ishora qiladi: {uch!r}")
    chap = min(j[0] for j in qutilar.values())
    ong = max(j[0] + j[2] for j in qutilar.values())
    past = min(j[1] for j in qutilar.values())
    tepa = max(j[1] + j[3] for j in qutilar.values())
    rasm, ax = plt.subplots(figsize=(1.6 * (ong - chap) + 1, 1.6 * (tepa - past) + 1))
    bloklar = {n: _blok_chiz(ax, n, j) for n, j in qutilar.items()}
    for qayerdan, qayerga in boglanishlar:
        a, b = bloklar[qayerdan], bloklar[qayerga]
        ax.annotate("", xy=_markaz(b), xytext=_markaz(a),
                    arrowprops=dict(arrowstyle="-|>", color="#444444", lw=1.6, mutation_scale=16,
                                    patchA=a, patchB=b, shrinkA=2, shrinkB=2))
    ax.set_xlim(chap - 0.2, ong + 0.2)
    ax.set_ylim(past - 0.2, tepa + 0.2)
    ax.set_aspect("equal")
    ax.axis("off")
    fig(fayl, caption=izoh)


def _markaz(blok: FancyBboxPatch) -> tuple[float, float]:
    return blok.get_x() + blok.get_width() / 2, blok.get_y() + blok.get_height() / 2
