"""helpers.multihead.MultiHeadAttention: shapes, parity with nn.MultiheadAttention, pad mask, assert."""

import pytest
import torch
import torch.nn as nn

from helpers.multihead import MultiHeadAttention


def copy_into_torch(ours: MultiHeadAttention) -> nn.MultiheadAttention:
    d = ours.W_q.in_features
    theirs = nn.MultiheadAttention(d, ours.h, batch_first=True)
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.W_q.weight, ours.W_k.weight, ours.W_v.weight]))
        theirs.in_proj_bias.copy_(torch.cat([ours.W_q.bias, ours.W_k.bias, ours.W_v.bias]))
        theirs.out_proj.weight.copy_(ours.W_o.weight)
        theirs.out_proj.bias.copy_(ours.W_o.bias)
    return theirs.eval()


@pytest.mark.parametrize("h", [1, 2, 4, 8])
def test_shapes(h):
    torch.manual_seed(0)
    m = MultiHeadAttention(32, h)
    q, kv = torch.randn(3, 5, 32), torch.randn(3, 7, 32)
    assert m.bol(q).shape == (3, h, 5, 32 // h)
    out, w = m(q, kv, kv)
    assert out.shape == (3, 5, 32)
    assert w.shape == (3, h, 5, 7)
    assert torch.allclose(w.sum(-1), torch.ones(3, h, 5))


def test_parameter_count_does_not_depend_on_h():
    counts = {h: sum(p.numel() for p in MultiHeadAttention(32, h).parameters()) for h in [1, 2, 4, 8, 16]}
    assert set(counts.values()) == {4 * 32 ** 2 + 4 * 32}, counts


def test_head_is_a_column_slice():
    torch.manual_seed(0)
    m = MultiHeadAttention(32, 4)
    X = torch.randn(2, 6, 32)
    with torch.no_grad():
        by_hand = X @ m.W_q.weight[8:16].T + m.W_q.bias[8:16]
        assert (m.bol(m.W_q(X))[:, 1] - by_hand).abs().max() < 1e-5


def test_scale_is_sqrt_d_k():
    torch.manual_seed(0)
    m = MultiHeadAttention(32, 4)
    X = torch.randn(2, 6, 32)
    with torch.no_grad():
        _, w = m(X, X, X)
        Q, K = m.bol(m.W_q(X)), m.bol(m.W_k(X))
        s = Q @ K.transpose(-2, -1)
        assert (w - torch.softmax(s / 8 ** 0.5, -1)).abs().max() < 1e-6
        assert (w - torch.softmax(s / 32 ** 0.5, -1)).abs().max() > 1e-2


@pytest.mark.parametrize("cross", [False, True])
def test_equals_nn_multiheadattention_after_copying_weights(cross):
    torch.manual_seed(0)
    ours = MultiHeadAttention(32, 4)
    theirs = copy_into_torch(ours)
    X = torch.randn(3, 7, 32)
    q = torch.randn(3, 5, 32) if cross else X
    pad = torch.arange(7)[None, :] >= torch.tensor([7, 4, 2])[:, None]
    with torch.no_grad():
        for mask in (None, pad):
            o_ours, w_ours = ours(q, X, X, pad=mask)
            o_theirs, w_theirs = theirs(q, X, X, key_padding_mask=mask, average_attn_weights=False)
            assert (o_ours - o_theirs).abs().max() < 1e-5
            assert (w_ours - w_theirs).abs().max() < 1e-5


def test_pad_true_means_ignored():
    torch.manual_seed(0)
    m = MultiHeadAttention(16, 2)
    X = torch.randn(2, 5, 16)
    pad = torch.tensor([[False] * 5, [False, False, True, True, True]])
    with torch.no_grad():
        out, w = m(X, X, X, pad=pad)
        alone, _ = m(X[1:, :2], X[1:, :2], X[1:, :2])
    assert w[1, :, :, 2:].abs().max() == 0          # PAD keys get exactly zero weight
    assert w[1, :, :, :2].min() > 0                  # real keys still take part
    assert (out[1, :2] - alone[0]).abs().max() < 1e-5  # padding changes nothing for real tokens


def test_d_model_not_divisible_by_h_is_refused_with_a_clear_message():
    with pytest.raises(AssertionError, match="d_model boshlar soniga bo'linishi kerak"):
        MultiHeadAttention(30, 4)
