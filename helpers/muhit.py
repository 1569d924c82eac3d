"""Darslar ishlayotgan muhit: nechta yadro, interaktivmi yoki papermill/CI ostidami."""

import os
import sys

OQIMLAR_OZGARUVCHISI = "KURS_OQIMLAR"


def yadrolar_soni() -> int:
    """Mashinadagi (shu jarayonga ruxsat berilgan) yadrolar soni."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def oqimlar_soni() -> int:
    """Torch uchun oqimlar soni: KURS_OQIMLAR berilgan bo'lsa u, aks holda mashinadagi yadrolar.

    Bir nechta daftar parallel bajarilganda kurs yig'uvchisi (builder) KURS_OQIMLAR ni yadrolar/ishchilar
    qilib beradi, shunda oqimlar yadrolardan oshib ketmaydi (2 yadroda 4 oqim RNN ni ~3x sekinlashtiradi).
    """
    qiymat = os.environ.get(OQIMLAR_OZGARUVCHISI, "").strip()
    if qiymat:
        if not qiymat.isdigit() or int(qiymat) < 1:
            raise ValueError(f"{OQIMLAR_OZGARUVCHISI} musbat butun son bo'lishi kerak, berilgan: {qiymat!r}")
        return int(qiymat)
    return yadrolar_soni()


def interaktiv() -> bool:
    """Talaba daftarni o'zi ishlatayaptimi (progress bar kerak), yoki papermill/CI/terminalmi (jim)."""
    if os.environ.get("CI") or os.environ.get("PAPERMILL_EXECUTION") or os.environ.get("KURS_JIM"):
        return False
    try:
        from IPython import get_ipython
    except ImportError:
        return sys.stderr.isatty()
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"
