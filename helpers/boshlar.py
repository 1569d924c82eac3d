"""Ikki bog'lanishli vazifa, boshini o'chirsa bo'ladigan kichik model va uni o'rgatish.

Dars: notebooks/04_boshlar_ixtisoslashuvi.ipynb o'rgatadi (kod o'sha yerda yozib ko'rsatilgan);
notebooks/05_bosh_soni_tajribasi.ipynb shu yerdan import qiladi. Test (tests/test_boshlar.py) 4-darsdagi
har bir ta'rif shu fayldagi bilan harfma-harf bir xil ekanini tekshiradi.
"""

import torch
import torch.nn as nn

K, N = 8, 12            # 8 xil token, uzunlik 12


def malumot(m, g):
    """Har pozitsiya i >= 1 uchun ikki nishon: oldingi token x[i-1] va birinchi token x[0].

    Dars: 04_boshlar_ixtisoslashuvi (3-misol vazifasi).
    """
    X = torch.randint(0, K, (m, N), generator=g)
    return X, X[:, :-1], X[:, :1].expand(m, N - 1)


class MHA(nn.Module):
    """Ko'p boshli self-attention; `ochiq` (h,) 0/1 vektori boshlarni o'chiradi.

    Dars: 04_boshlar_ixtisoslashuvi.
    """

    def __init__(self, d, h):
        super().__init__()
        self.h, self.d_k = h, d // h
        self.W_qkv = nn.Linear(d, 3 * d)                 # W_q, W_k, W_v bitta matritsada
        self.W_o = nn.Linear(d, d)

    def forward(self, x, ochiq=None):
        B, n, d = x.shape
        Q, K_, V = self.W_qkv(x).view(B, n, 3, self.h, self.d_k).permute(2, 0, 3, 1, 4)
        w = torch.softmax(Q @ K_.transpose(-2, -1) / self.d_k ** 0.5, -1)   # (B, h, n, n)
        O = w @ V
        if ochiq is not None:                            # boshni "o'chirish" (ablation)
            O = O * ochiq[None, :, None, None]
        return self.W_o(O.transpose(1, 2).reshape(B, n, d)), w


class Model(nn.Module):
    """Embedding + pozitsiya + bitta MHA qatlami + ikki nishon uchun ikki kichik MLP.

    Dars: 04_boshlar_ixtisoslashuvi.
    """

    def __init__(self, h, d=32):
        super().__init__()
        self.emb = nn.Embedding(K, d)
        self.poz = nn.Embedding(N, d)                    # o'rgatiladigan pozitsiya
        self.mha = MHA(d, h)
        self.oldingi = nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Linear(64, K))
        self.birinchi = nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Linear(64, K))

    def forward(self, X, ochiq=None):
        h = self.emb(X) + self.poz(torch.arange(X.shape[1]))
        o, w = self.mha(h, ochiq)
        h = (h + o)[:, 1:]
        return self.oldingi(h), self.birinchi(h), w


def orgat(h, seed, qadamlar=400, batch=128):
    """h boshli modelni `seed` bilan o'rgatadi: Adam lr 3e-3, har qadamda `batch` ta misol.

    Seedning 3-skripti batch = 128, 4-skripti batch = 64 ishlatadi.
    Dars: 04_boshlar_ixtisoslashuvi.
    """
    torch.manual_seed(seed)
    model = Model(h)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(seed)
    for _ in range(qadamlar):
        X, ya, yb = malumot(batch, g)
        la, lb, _ = model(X)
        loss = (nn.functional.cross_entropy(la.reshape(-1, K), ya.reshape(-1))
                + nn.functional.cross_entropy(lb.reshape(-1, K), yb.reshape(-1)))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model


def aniqlik(model, test, ochiq=None):
    """Ikki nishonning har biridagi aniqlik va boshlar og'irliklari (B, h, n, n).

    Dars: 04_boshlar_ixtisoslashuvi.
    """
    X, ya, yb = test
    with torch.no_grad():
        la, lb, w = model(X, ochiq)
    return ((la.argmax(-1) == ya).float().mean().item(),
            (lb.argmax(-1) == yb).float().mean().item(), w)


def ikkalasi(model, test, ochiq=None):
    """Pozitsiyada IKKALA nishon ham to'g'ri topilgan ulush.

    Dars: 04_boshlar_ixtisoslashuvi (5-dars asosiy o'lchovi).
    """
    X, ya, yb = test
    with torch.no_grad():
        la, lb, _ = model(X, ochiq)
    return ((la.argmax(-1) == ya) & (lb.argmax(-1) == yb)).float().mean().item()

