"""Bosh soni tajribasi: ko'p seedni parallel o'rgatish, muvaffaqiyat ulushi va uning statistikasi.

Dars: notebooks/05_bosh_soni_tajribasi.ipynb (kengaytirilgan tadqiqot). Model, ma'lumot va o'rgatish
4-darsda o'rgatilgan (`helpers.boshlar`); bu yerda faqat ularni ko'p marta ishga tushirish va natijani
sanash bor.
"""

import math
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context

import torch

from helpers.boshlar import ikkalasi, malumot, orgat
from helpers.muhit import interaktiv, yadrolar_soni

YECHDI_CHEGARASI = 0.95   # seed "yechdi": ikkala nishon ham pozitsiyalarning > 95% ida to'g'ri
Z_95 = 1.959963984540054  # standart normal taqsimotning 97.5% kvantili (95% ikki tomonlama oraliq)


def bir_seed(h, seed, qadamlar=400, batch=64, ochirish=True):
    """Bitta (h, seed) ni 4-skriptdagidek o'rgatadi va o'lchaydi (bitta oqimda, seed kabi).

    Qaytaradi: {"h", "seed", "aniqlik": ikkala nishon to'g'ri ulushi,
    "tushish": har boshni o'chirganda aniqlik qanchaga tushishi (h > 1 va ochirish=True bo'lsa)}.
    Asosiy jarayonda ham, ishchi jarayonda ham bir xil natija beradi: oqimlar soni 1 ga qo'yiladi
    (seed skriptining sharti; ko'p oqimda yig'indilar tartibi, demak oxirgi raqamlar o'zgarishi mumkin).
    Dars: 05_bosh_soni_tajribasi.
    """
    oldingi_oqimlar = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        test = malumot(1000, torch.Generator().manual_seed(9))
        model = orgat(h, seed, qadamlar=qadamlar, batch=batch)
        a = ikkalasi(model, test)
        tushish = []
        if ochirish and h > 1:
            for k in range(h):
                ochiq = torch.ones(h)
                ochiq[k] = 0
                tushish.append(a - ikkalasi(model, test, ochiq))
    finally:
        torch.set_num_threads(oldingi_oqimlar)
    return {"h": h, "seed": seed, "aniqlik": a, "tushish": tushish}


def _bir_seed_kortej(vazifa):
    h, seed, qadamlar, batch, ochirish = vazifa
    return bir_seed(h, seed, qadamlar, batch, ochirish)


def parallel_orgat(juftlar, qadamlar=400, batch=64, ochirish=True, ishchilar=None, izoh="o'rgatish"):
    """(h, seed) juftlarini mustaqil jarayonlarda parallel o'rgatadi; natijalar `juftlar` tartibida.

    ishchilar: jarayonlar soni (sukut: mashinadagi barcha yadrolar — har jarayon bitta oqimda ishlaydi, shuning
    uchun boshqa daftar parallel ishlayotgan bo'lsa ham yadrolar bir-birini kutib qolmaydi);
    1 bo'lsa hammasi shu jarayonda ketma-ket bajariladi. Har jarayon bitta oqimda ishlaydi, shuning uchun
    natija qaysi jarayonda o'rgatilganiga bog'liq emas. Progress bar faqat talaba Jupyter da
    ishlatganda ko'rinadi.
    Dars: 05_bosh_soni_tajribasi.
    """
    from tqdm.auto import tqdm

    vazifalar = [(h, s, qadamlar, batch, ochirish) for h, s in juftlar]
    ishchilar = max(1, min(ishchilar or yadrolar_soni(), len(vazifalar) or 1))
    natijalar = [None] * len(vazifalar)
    with tqdm(total=len(vazifalar), desc=izoh, disable=not interaktiv()) as bar:
        if ishchilar == 1:
            for j, v in enumerate(vazifalar):
                natijalar[j] = _bir_seed_kortej(v)
                bar.update()
        else:
            with ProcessPoolExecutor(max_workers=ishchilar, mp_context=get_context("spawn")) as pool:
                kutish = {pool.submit(_bir_seed_kortej, v): j for j, v in enumerate(vazifalar)}
                for tayyor in as_completed(kutish):
                    natijalar[kutish[tayyor]] = tayyor.result()
                    bar.update()
    return natijalar


def wilson(k, n, z=Z_95):
    """k/n ulush uchun Wilson oralig'i (sukut: 95%): (quyi, yuqori).

    Oddiy "p ± 2 SE" 0/n va n/n da [0, 0] yoki [1, 1] beradi, Wilson esa kichik n da ham
    ma'noli oraliq beradi: bu p lar to'plami, ular uchun |k/n - p| <= z sqrt(p(1-p)/n).
    Dars: 05_bosh_soni_tajribasi.
    """
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"wilson: 0 <= k <= n va n > 0 bo'lishi kerak, berilgan k={k}, n={n}")
    p = k / n
    mahraj = 1 + z * z / n
    markaz = (p + z * z / (2 * n)) / mahraj
    yarim = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / mahraj
    return max(0.0, markaz - yarim), min(1.0, markaz + yarim)


def mcnemar_aniq(b, c):
    """Juftlashgan ikki tomonlama aniq test (McNemar = mos kelmagan juftlardagi belgi testi).

    b: faqat birinchi variant yechgan seedlar soni, c: faqat ikkinchisi yechganlar soni.
    Farq bo'lmasa, har bir mos kelmagan juft tanga kabi 50/50: p = P(Binom(b+c, 1/2) shunchalik
    yoki undan ham bir tomonlama). Ikkalasi ham yechgan yoki ikkalasi ham yecha olmagan seedlar
    hech narsa demaydi va hisobga kirmaydi.
    Dars: 05_bosh_soni_tajribasi.
    """
    if b < 0 or c < 0:
        raise ValueError(f"mcnemar_aniq: sonlar manfiy bo'lmaydi, berilgan b={b}, c={c}")
    n = b + c
    if n == 0:
        return 1.0
    dum = sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2 ** n
    return min(1.0, 2 * dum)


def tadqiqot_jadvali(aniqliklar, asos=1, chegara=YECHDI_CHEGARASI):
    """{h: seedlar bo'yicha aniqliklar ro'yxati (hamma h da bir xil seedlar, bir xil tartibda)} dan
    har h uchun qatorlar: yechgan soni, ulush, Wilson 95% oraliq va h = asos bilan juftlashgan test.

    Dars: 05_bosh_soni_tajribasi.
    """
    asos_yechdi = [a > chegara for a in aniqliklar[asos]]
    qatorlar = []
    for h, acc in aniqliklar.items():
        if len(acc) != len(asos_yechdi):
            raise ValueError(f"h = {h}: {len(acc)} seed, h = {asos} da esa {len(asos_yechdi)} - "
                             "juftlash uchun seedlar bir xil bo'lishi kerak")
        yechdi = [a > chegara for a in acc]
        k, n = sum(yechdi), len(yechdi)
        quyi, yuqori = wilson(k, n)
        qator = {"h": h, "yechgan": k, "seedlar": n, "ulush": k / n, "quyi": quyi, "yuqori": yuqori,
                 "faqat_h": None, "faqat_asos": None, "p": None}
        if h != asos:
            b = sum(y and not a for y, a in zip(yechdi, asos_yechdi, strict=True))
            c = sum(a and not y for y, a in zip(yechdi, asos_yechdi, strict=True))
            qator.update(faqat_h=b, faqat_asos=c, p=mcnemar_aniq(b, c))
        qatorlar.append(qator)
    return qatorlar


def _p_matn(p):
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def xulosa(qatorlar, asos=1, alfa=0.05):
    """Tadqiqot jadvalidan (`tadqiqot_jadvali`) o'zbekcha xulosa matni - faqat raqamlardan hisoblanadi.

    Bir nechta h ni h = asos bilan solishtirganimiz uchun chegara alfa / (taqqoslashlar soni)
    (Bonferroni): aks holda tasodifan bittasi "sezilarli" chiqib qolishi osonlashadi.
    Dars: 05_bosh_soni_tajribasi.
    """
    asos_q = next(q for q in qatorlar if q["h"] == asos)
    boshqalar = [q for q in qatorlar if q["h"] != asos]
    chegara = alfa / max(1, len(boshqalar))
    n = asos_q["seedlar"]
    gaplar = [f"Har h uchun bir xil {n} seed o'rgatildi; h = {asos} ulardan {asos_q['yechgan']}/{n} "
              f"tasini yechdi. Sezilarlilik chegarasi: {alfa} / {len(boshqalar)} = {chegara:.4f}."]
    yaxshi, yomon, farqsiz = [], [], []
    for q in boshqalar:
        juftlar = (f"faqat h = {q['h']} yechgan seedlar {q['faqat_h']} ta, "
                   f"faqat h = {asos} yechganlari {q['faqat_asos']} ta, {_p_matn(q['p'])}")
        if q["p"] < chegara and q["faqat_h"] > q["faqat_asos"]:
            yaxshi.append(q["h"])
            gaplar.append(f"h = {q['h']} ko'proq seedda yechadi ({q['yechgan']}/{n} va "
                          f"{asos_q['yechgan']}/{n}): {juftlar} - bu farq tasodif emas.")
        elif q["p"] < chegara:
            yomon.append(q["h"])
            gaplar.append(f"h = {q['h']} kamroq seedda yechadi ({q['yechgan']}/{n} va "
                          f"{asos_q['yechgan']}/{n}): {juftlar} - bu farq tasodif emas.")
        else:
            farqsiz.append(q["h"])
            gaplar.append(f"h = {q['h']} va h = {asos} orasidagi farq ({q['yechgan']}/{n} va "
                          f"{asos_q['yechgan']}/{n}) tasodif bo'lishi mumkin: {juftlar}, "
                          f"bu {chegara:.4f} dan katta.")
    yakun = []
    if yaxshi:
        yakun.append(f"h = {yaxshi} h = {asos} dan ishonchli ravishda ko'proq seedda vazifani yechadi")
    if yomon:
        yakun.append(f"h = {yomon} h = {asos} dan ishonchli ravishda kamroq seedda yechadi")
    if farqsiz:
        yakun.append(f"h = {farqsiz} uchun h = {asos} dan farq {n} seed bilan isbotlanmadi")
    gaplar.append("Xulosa: " + "; ".join(yakun) + ".")
    return "\n".join(gaplar)
