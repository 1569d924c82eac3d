"""Ko'p boshli attention noldan: 2-darsda o'rgatiladigan modul, 3-dars va testlar shu yerdan oladi."""

import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    """Ko'p boshli attention: proyeksiya, h boshga bo'lish, har boshda attention, ulash va W_o.

    Dars: notebooks/02_multihead_noldan.ipynb (o'rgatiladi), 03_nn_multiheadattention.ipynb (ishlatiladi).
    """

    def __init__(self, d_model, h):
        super().__init__()
        assert d_model % h == 0, "d_model boshlar soniga bo'linishi kerak"
        self.h, self.d_k = h, d_model // h
        self.W_q = nn.Linear(d_model, d_model)
        self.W_k = nn.Linear(d_model, d_model)
        self.W_v = nn.Linear(d_model, d_model)
        self.W_o = nn.Linear(d_model, d_model)

    def bol(self, x):
        """(B, n, d_model) -> (B, h, n, d_k)"""
        B, n, _ = x.shape
        return x.view(B, n, self.h, self.d_k).transpose(1, 2)

    def forward(self, q_kir, k_kir, v_kir, pad=None):
        """pad: (B, n_k) bool, True - PAD (e'tiborsiz), nn.MultiheadAttention kabi."""
        Q, K, V = self.bol(self.W_q(q_kir)), self.bol(self.W_k(k_kir)), self.bol(self.W_v(v_kir))
        skor = Q @ K.transpose(-2, -1) / self.d_k ** 0.5          # (B, h, n_q, n_k)
        if pad is not None:
            skor = skor.masked_fill(pad[:, None, None, :], float("-inf"))
        w = torch.softmax(skor, dim=-1)
        O = w @ V                                                 # (B, h, n_q, d_k)
        B, _, n_q, _ = O.shape
        O = O.transpose(1, 2).reshape(B, n_q, self.h * self.d_k)  # boshlarni ulash
        return self.W_o(O), w
