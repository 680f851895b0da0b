"""Corpus N: machine learning from scratch in NumPy.

Hand-written ML building blocks the way practitioners prototype them in plain
NumPy: MLP forward passes and manual backward passes (relu / gelu / tanh,
softmax cross-entropy with integer labels picked by fancy indexing), optimizer
steps that update parameters in place (SGD with momentum, Adam, AdamW,
RMSProp with bias correction from a Python int step), gradient clipping by
global norm, batch norm / layer norm / RMS norm, dropout with an explicit mask,
causal single- and multi-head attention, 1-D and 2-D convolutions built on
sliding_window_view / im2col, reshape-based pooling, a k-means step, kNN
voting with bincount, logistic / ridge / polynomial regression, PCA by eigh and
power iteration, classification metrics (P/R/F1, confusion matrix with
np.add.at, ROC-AUC by sorting, clipped log-loss), embedding mean pooling, label
smoothing, focal loss, cosine top-k retrieval, sinusoidal positional encodings
and a warmup + cosine learning-rate schedule. Mostly float32 with some
float64, int64 and int32 label arrays, and tuple returns.
"""
import math
import numpy as np


# ---------------------------------------------------------------------------
# MLPs and losses
# ---------------------------------------------------------------------------

def mlp_relu_forward_backward(X, y, W1, b1, W2, b2):
    n = X.shape[0]
    z1 = X @ W1 + b1
    h = np.maximum(z1, 0)
    logits = h @ W2 + b2
    logits = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(logits)
    probs = exp / exp.sum(axis=1, keepdims=True)
    loss = -np.mean(np.log(probs[np.arange(n), y] + 1e-12))

    dlogits = probs.copy()
    dlogits[np.arange(n), y] -= 1
    dlogits /= n
    dW2 = h.T @ dlogits
    db2 = dlogits.sum(axis=0)
    dh = dlogits @ W2.T
    dz1 = dh * (z1 > 0)
    dW1 = X.T @ dz1
    db1 = dz1.sum(axis=0)
    return loss, dW1, db1, dW2, db2


def _gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def gelu_tanh_mlp_logits(X, W1, b1, W2, b2):
    h = _gelu_tanh(X @ W1 + b1)
    return h @ W2 + b2


def tanh_mlp_mse_backward(X, Y, W1, b1, W2, b2):
    n = X.shape[0]
    h = np.tanh(X @ W1 + b1)
    pred = h @ W2 + b2
    diff = pred - Y
    loss = 0.5 * np.mean(np.sum(diff ** 2, axis=1))
    dpred = diff / n
    dW2 = h.T @ dpred
    db2 = dpred.sum(axis=0)
    dh = dpred @ W2.T
    dz = dh * (1.0 - h ** 2)
    dW1 = X.T @ dz
    db1 = dz.sum(axis=0)
    return loss, dW1, db1, dW2, db2


def softmax_xent_loss_and_grad(logits, y):
    n = logits.shape[0]
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    loss = -log_probs[np.arange(n), y].mean()
    grad = np.exp(log_probs)
    grad[np.arange(n), y] -= 1.0
    grad /= n
    return loss, grad


# ---------------------------------------------------------------------------
# Optimizers
# ---------------------------------------------------------------------------

def sgd_momentum_weight_decay_step(W, b, dW, db, vW, vb, lr, momentum, weight_decay):
    dW = dW + weight_decay * W
    vW *= momentum
    vW += dW
    vb *= momentum
    vb += db
    W -= lr * vW
    b -= lr * vb
    return W, b, vW, vb


def adam_bias_corrected_step(W, dW, m, v, step, lr, beta1, beta2, eps):
    m *= beta1
    m += (1 - beta1) * dW
    v *= beta2
    v += (1 - beta2) * dW * dW
    m_hat = m / (1 - beta1 ** step)
    v_hat = v / (1 - beta2 ** step)
    W -= lr * m_hat / (np.sqrt(v_hat) + eps)
    return W, m, v


def adamw_two_param_step(W, b, dW, db, mW, vW, mb, vb, step, lr, weight_decay):
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    bc1 = 1.0 - beta1 ** step
    bc2 = 1.0 - beta2 ** step
    for p, g, m, v, wd in ((W, dW, mW, vW, weight_decay), (b, db, mb, vb, 0.0)):
        p *= 1.0 - lr * wd
        m[...] = beta1 * m + (1.0 - beta1) * g
        v[...] = beta2 * v + (1.0 - beta2) * g * g
        p -= lr * (m / bc1) / (np.sqrt(v / bc2) + eps)
    return W, b, mW, vW, mb, vb


def rmsprop_step(W, dW, sq_avg, lr, alpha, eps):
    sq_avg *= alpha
    sq_avg += (1 - alpha) * dW ** 2
    W -= lr * dW / (np.sqrt(sq_avg) + eps)
    return W, sq_avg


def clip_grads_by_global_norm(gW1, gb1, gW2, gb2, max_norm):
    grads = (gW1, gb1, gW2, gb2)
    total_norm = math.sqrt(sum(float(np.sum(g * g)) for g in grads))
    scale = min(1.0, max_norm / (total_norm + 1e-6))
    clipped = tuple(g * scale for g in grads)
    return clipped + (total_norm,)


# ---------------------------------------------------------------------------
# Normalisation, dropout
# ---------------------------------------------------------------------------

def batchnorm2d_train_forward(x, gamma, beta, running_mean, running_var, momentum, eps):
    n = x.shape[0] * x.shape[2] * x.shape[3]
    mean = x.mean(axis=(0, 2, 3), keepdims=True)
    var = x.var(axis=(0, 2, 3), keepdims=True)
    x_hat = (x - mean) / np.sqrt(var + eps)
    out = gamma.reshape(1, -1, 1, 1) * x_hat + beta.reshape(1, -1, 1, 1)
    mean = mean.reshape(-1)
    var = var.reshape(-1)
    new_running_mean = (1 - momentum) * running_mean + momentum * mean
    new_running_var = (1 - momentum) * running_var + momentum * var * n / (n - 1)
    return out, new_running_mean, new_running_var


def dropout_linear_relu_forward_backward(x, W, b, mask, p, dout):
    z = x @ W + b
    h = np.maximum(z, 0)
    scale = 1.0 / (1.0 - p)
    out = h * mask * scale
    dh = dout * mask * scale
    dz = dh * (z > 0)
    dW = x.T @ dz
    db = dz.sum(axis=0)
    dx = dz @ W.T
    return out, dx, dW, db


def layernorm_forward_backward(x, gamma, beta, dout, eps):
    mu = x.mean(axis=-1, keepdims=True)
    xc = x - mu
    var = (xc ** 2).mean(axis=-1, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    xhat = xc * rstd
    out = xhat * gamma + beta
    dgamma = (dout * xhat).sum(axis=0)
    dbeta = dout.sum(axis=0)
    dxhat = dout * gamma
    dx = rstd * (dxhat - dxhat.mean(axis=-1, keepdims=True)
                 - xhat * (dxhat * xhat).mean(axis=-1, keepdims=True))
    return out, dx, dgamma, dbeta


def rmsnorm_swiglu_ffn(x, g, W_gate, W_up, W_down, eps):
    h = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * g
    gate = h @ W_gate
    up = h @ W_up
    act = gate / (1.0 + np.exp(-gate)) * up
    return x + act @ W_down


# ---------------------------------------------------------------------------
# Attention
# ---------------------------------------------------------------------------

def causal_single_head_attention(x, Wq, Wk, Wv):
    T = x.shape[1]
    q = x @ Wq
    k = x @ Wk
    v = x @ Wv
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
    mask = np.triu(np.ones((T, T), dtype=bool), k=1)
    scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    return w @ v


def multihead_causal_attention_forward(x, Wqkv, Wo, n_heads):
    B, T, D = x.shape
    hd = D // n_heads
    qkv = x @ Wqkv
    q, k, v = np.split(qkv, 3, axis=-1)
    q = q.reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)
    k = k.reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)
    v = v.reshape(B, T, n_heads, hd).transpose(0, 2, 1, 3)
    att = (q @ k.transpose(0, 1, 3, 2)) * (1.0 / math.sqrt(hd))
    mask = np.triu(np.ones((T, T)), k=1).astype(bool)
    att[:, :, mask] = -1e9
    att = np.exp(att - att.max(axis=-1, keepdims=True))
    att = att / att.sum(axis=-1, keepdims=True)
    out = (att @ v).transpose(0, 2, 1, 3).reshape(B, T, D)
    return out @ Wo


# ---------------------------------------------------------------------------
# Convolution and pooling
# ---------------------------------------------------------------------------

def conv1d_valid_relu(x, w, b):
    # x: (B, L, C_in), w: (K, C_in, C_out)
    K = w.shape[0]
    win = np.lib.stride_tricks.sliding_window_view(x, K, axis=1)  # (B, L-K+1, C_in, K)
    out = np.tensordot(win, w, axes=([2, 3], [1, 0]))
    return np.maximum(out + b, 0)


def conv2d_im2col_same(x, w, b):
    # x: (N, C, H, W), w: (F, C, KH, KW), stride 1, "same" padding for 3x3
    F, C, KH, KW = w.shape
    N = x.shape[0]
    ph, pw = KH // 2, KW // 2
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (KH, KW), axis=(2, 3))
    Ho, Wo = win.shape[2], win.shape[3]
    cols = win.transpose(0, 2, 3, 1, 4, 5).reshape(N * Ho * Wo, C * KH * KW)
    out = cols @ w.reshape(F, -1).T + b
    return out.reshape(N, Ho, Wo, F).transpose(0, 3, 1, 2)


def maxpool2x2_forward_backward(x, dout):
    N, C, H, W = x.shape
    xr = x.reshape(N, C, H // 2, 2, W // 2, 2)
    out = xr.max(axis=(3, 5))
    mask = xr == out[:, :, :, None, :, None]
    dx = (mask * dout[:, :, :, None, :, None]).reshape(N, C, H, W)
    return out, dx


def avgpool2x2_and_global_pool(x):
    N, C, H, W = x.shape
    pooled = x.reshape(N, C, H // 2, 2, W // 2, 2).mean(axis=(3, 5))
    gap = pooled.mean(axis=(2, 3))
    return pooled, gap


# ---------------------------------------------------------------------------
# Classical ML
# ---------------------------------------------------------------------------

def kmeans_assign_update_step(X, C):
    n = X.shape[0]
    k = C.shape[0]
    d2 = (X ** 2).sum(axis=1, keepdims=True) - 2 * X @ C.T + (C ** 2).sum(axis=1)
    labels = d2.argmin(axis=1)
    counts = np.bincount(labels, minlength=k)
    new_C = C.copy()
    for j in range(k):
        if counts[j] > 0:
            new_C[j] = X[labels == j].mean(axis=0)
    inertia = np.maximum(d2[np.arange(n), labels], 0).sum()
    return new_C, labels, counts, inertia


def knn_classify_majority_vote(X_train, y_train, X_test, k, n_classes):
    m = X_test.shape[0]
    d2 = (np.sum(X_test ** 2, axis=1)[:, None] - 2.0 * X_test @ X_train.T
          + np.sum(X_train ** 2, axis=1)[None, :])
    nn = np.argpartition(d2, k, axis=1)[:, :k]
    nn_labels = y_train[nn]
    flat = (np.arange(m)[:, None] * n_classes + nn_labels).ravel()
    votes = np.bincount(flat, minlength=m * n_classes).reshape(m, n_classes)
    return votes.argmax(axis=1)


def logistic_regression_gd_fit(X, y, n_iter, lr, l2):
    n, d = X.shape
    w = np.zeros(d, dtype=X.dtype)
    b = 0.0
    yf = y.astype(X.dtype)
    for _ in range(n_iter):
        z = X @ w + b
        p = 1.0 / (1.0 + np.exp(-z))
        err = p - yf
        w -= lr * (X.T @ err / n + l2 * w)
        b -= lr * err.mean()
    p = np.clip(1.0 / (1.0 + np.exp(-(X @ w + b))), 1e-7, 1 - 1e-7)
    loss = -np.mean(yf * np.log(p) + (1 - yf) * np.log(1 - p))
    return w, b, loss


def ridge_normal_equations_fit(X, y, lam):
    n, d = X.shape
    Xb = np.hstack([X, np.ones((n, 1))])
    A = Xb.T @ Xb + lam * np.eye(d + 1)
    A[-1, -1] -= lam  # don't regularise the bias
    w = np.linalg.solve(A, Xb.T @ y)
    pred = Xb @ w
    r2 = 1.0 - np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2)
    return w, r2


def polynomial_lstsq_fit(x, y, degree):
    V = np.vander(x, degree + 1, increasing=True)
    coef, _, _, _ = np.linalg.lstsq(V, y, rcond=None)
    fitted = V @ coef
    rmse = np.sqrt(np.mean((fitted - y) ** 2))
    return coef, rmse


def pca_eigh_project(X, n_components):
    Xc = X - X.mean(axis=0)
    cov = Xc.T @ Xc / (X.shape[0] - 1)
    evals, evecs = np.linalg.eigh(cov)
    evals = evals[::-1]
    comps = evecs[:, ::-1][:, :n_components]
    # deterministic sign: largest-magnitude loading positive
    idx = np.argmax(np.abs(comps), axis=0)
    signs = np.sign(comps[idx, np.arange(n_components)])
    comps = comps * signs
    explained = evals[:n_components] / evals.sum()
    return Xc @ comps, explained


def power_iteration_top_component(X, n_iter):
    n, d = X.shape
    Xc = X - X.mean(axis=0)
    C = Xc.T @ Xc / (n - 1)
    v = np.ones(d, dtype=X.dtype) / math.sqrt(d)
    for _ in range(n_iter):
        v = C @ v
        v /= np.linalg.norm(v)
    eigval = v @ C @ v
    return eigval, v


# ---------------------------------------------------------------------------
# Metrics
# ---------------------------------------------------------------------------

def precision_recall_f1_macro(y_true, y_pred, n_classes):
    tp = np.bincount(y_true[y_true == y_pred], minlength=n_classes).astype(np.float64)
    pred_pos = np.bincount(y_pred, minlength=n_classes)
    actual_pos = np.bincount(y_true, minlength=n_classes)
    precision = tp / np.maximum(pred_pos, 1)
    recall = tp / np.maximum(actual_pos, 1)
    denom = precision + recall
    f1 = np.where(denom > 0, 2 * precision * recall / np.maximum(denom, 1e-12), 0.0)
    return precision, recall, f1, f1.mean()


def confusion_matrix_add_at(y_true, y_pred, n_classes):
    cm = np.zeros((n_classes, n_classes), dtype=np.int64)
    np.add.at(cm, (y_true, y_pred), 1)
    acc = np.trace(cm) / cm.sum()
    normalized = cm / np.maximum(cm.sum(axis=1, keepdims=True), 1)
    return cm, acc, normalized


def roc_auc_by_sorting(scores, labels):
    order = np.argsort(-scores, kind="mergesort")
    y = labels[order]
    tps = np.cumsum(y)
    fps = np.cumsum(1 - y)
    tpr = np.concatenate([[0.0], tps / tps[-1]])
    fpr = np.concatenate([[0.0], fps / fps[-1]])
    return np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) * 0.5)


def binary_log_loss_clipped(y_true, p_pred, eps):
    p = np.clip(p_pred, eps, 1 - eps)
    return -np.mean(y_true * np.log(p) + (1 - y_true) * np.log1p(-p))


# ---------------------------------------------------------------------------
# Embeddings, losses, retrieval, schedules
# ---------------------------------------------------------------------------

def embedding_masked_mean_pool(table, ids, lengths):
    emb = table[ids]  # (B, L, D)
    L = ids.shape[1]
    mask = (np.arange(L)[None, :] < lengths[:, None]).astype(table.dtype)
    summed = (emb * mask[:, :, None]).sum(axis=1)
    return summed / lengths[:, None].astype(table.dtype)


def label_smoothed_cross_entropy(logits, y, smoothing):
    n, k = logits.shape
    logp = logits - logits.max(axis=-1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(axis=-1, keepdims=True))
    onehot = np.eye(k, dtype=logits.dtype)[y]
    target = onehot * (1.0 - smoothing) + smoothing / k
    loss = -(target * logp).sum(axis=-1).mean()
    grad = (np.exp(logp) - target) / n
    return loss, grad


def multiclass_focal_loss(logits, y, alpha, gamma):
    n = logits.shape[0]
    z = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(z)
    probs /= probs.sum(axis=1, keepdims=True)
    pt = np.clip(probs[np.arange(n), y], 1e-7, 1.0)
    loss = -alpha * (1.0 - pt) ** gamma * np.log(pt)
    return loss.mean()


def cosine_similarity_topk(queries, keys, k):
    qn = queries / np.linalg.norm(queries, axis=1, keepdims=True)
    kn = keys / np.linalg.norm(keys, axis=1, keepdims=True)
    sims = qn @ kn.T
    idx = np.argpartition(-sims, k, axis=1)[:, :k]
    top = np.take_along_axis(sims, idx, axis=1)
    order = np.argsort(-top, axis=1)
    return np.take_along_axis(idx, order, axis=1), np.take_along_axis(top, order, axis=1)


def sinusoidal_pe_add(x, positions):
    d = x.shape[-1]
    i = np.arange(0, d, 2)
    div = np.exp(i * (-math.log(10000.0) / d))
    ang = positions[:, None] * div[None, :]
    pe = np.zeros((positions.shape[0], d))
    pe[:, 0::2] = np.sin(ang)
    pe[:, 1::2] = np.cos(ang)
    return x * math.sqrt(d) + pe.astype(x.dtype)


def cosine_warmup_lr_schedule(steps, base_lr, min_lr, warmup_steps, total_steps):
    s = steps.astype(np.float64)
    warm = base_lr * (s + 1) / warmup_steps
    progress = np.clip((s - warmup_steps) / max(1, total_steps - warmup_steps), 0.0, 1.0)
    cos = min_lr + 0.5 * (base_lr - min_lr) * (1.0 + np.cos(math.pi * progress))
    return np.where(steps < warmup_steps, warm, cos)


# ---------------------------------------------------------------------------

def _make_args():
    rng = np.random.default_rng(20240617)
    progs = []

    def add(fn, *args):
        progs.append((fn.__name__, fn, args))

    f32 = np.float32

    def randn(*shape, scale=1.0, dtype=f32):
        return (rng.standard_normal(shape) * scale).astype(dtype)

    # MLPs and losses
    add(mlp_relu_forward_backward,
        randn(256, 128), rng.integers(0, 10, 256).astype(np.int64),
        randn(128, 256, scale=0.09), randn(256, scale=0.1),
        randn(256, 10, scale=0.06), np.zeros(10, dtype=f32))
    add(gelu_tanh_mlp_logits,
        randn(256, 256), randn(256, 1024, scale=1 / 16), randn(1024, scale=0.1),
        randn(1024, 16, scale=1 / 32), np.zeros(16, dtype=f32))
    add(tanh_mlp_mse_backward,
        randn(1024, 32, dtype=np.float64), randn(1024, 4, dtype=np.float64),
        randn(32, 128, scale=0.18, dtype=np.float64), np.zeros(128),
        randn(128, 4, scale=0.09, dtype=np.float64), np.zeros(4))
    add(softmax_xent_loss_and_grad,
        randn(4096, 100, scale=2.0), rng.integers(0, 100, 4096).astype(np.int64))

    # Optimizers
    add(sgd_momentum_weight_decay_step,
        randn(512, 256, scale=0.05), randn(256, scale=0.01),
        randn(512, 256, scale=0.01), randn(256, scale=0.01),
        np.zeros((512, 256), dtype=f32), np.zeros(256, dtype=f32), 0.01, 0.9, 5e-4)
    add(adam_bias_corrected_step,
        randn(1024, 512, scale=0.03), randn(1024, 512, scale=0.01),
        randn(1024, 512, scale=0.001), np.abs(randn(1024, 512, scale=1e-4)),
        10, 1e-3, 0.9, 0.999, 1e-8)
    add(adamw_two_param_step,
        randn(768, 768, scale=0.02), randn(768, scale=0.01),
        randn(768, 768, scale=0.01), randn(768, scale=0.01),
        np.zeros((768, 768), dtype=f32), np.zeros((768, 768), dtype=f32),
        np.zeros(768, dtype=f32), np.zeros(768, dtype=f32), 100, 3e-4, 0.01)
    add(rmsprop_step,
        randn(256, 1024, scale=0.05), randn(256, 1024, scale=0.01),
        np.abs(randn(256, 1024, scale=1e-4)), 1e-3, 0.99, 1e-8)
    add(clip_grads_by_global_norm,
        randn(784, 256, scale=0.01), randn(256, scale=0.01),
        randn(256, 10, scale=0.05), randn(10, scale=0.05), 1.0)

    # Normalisation, dropout
    add(batchnorm2d_train_forward,
        randn(32, 64, 16, 16, scale=2.0) + 0.5, 1.0 + randn(64, scale=0.1), randn(64, scale=0.1),
        np.zeros(64, dtype=f32), np.ones(64, dtype=f32), 0.1, 1e-5)
    add(dropout_linear_relu_forward_backward,
        randn(512, 256), randn(256, 512, scale=0.06), randn(512, scale=0.1),
        rng.random((512, 512)) > 0.2, 0.2, randn(512, 512))
    add(layernorm_forward_backward,
        randn(1024, 512, scale=3.0) + 1.0, 1.0 + randn(512, scale=0.1), randn(512, scale=0.1),
        randn(1024, 512), 1e-5)
    add(rmsnorm_swiglu_ffn,
        randn(512, 256), 1.0 + randn(256, scale=0.1),
        randn(256, 688, scale=1 / 16), randn(256, 688, scale=1 / 16),
        randn(688, 256, scale=1 / 26), 1e-6)

    # Attention
    add(causal_single_head_attention,
        randn(16, 128, 64), randn(64, 64, scale=0.125), randn(64, 64, scale=0.125),
        randn(64, 64, scale=0.125))
    add(multihead_causal_attention_forward,
        randn(8, 128, 256), randn(256, 768, scale=1 / 16), randn(256, 256, scale=1 / 16), 8)

    # Conv / pooling
    add(conv1d_valid_relu, randn(32, 256, 64), randn(5, 64, 64, scale=0.05), randn(64, scale=0.1))
    add(conv2d_im2col_same, randn(16, 3, 32, 32), randn(32, 3, 3, 3, scale=0.2), randn(32, scale=0.1))
    add(maxpool2x2_forward_backward, randn(16, 32, 32, 32), randn(16, 32, 16, 16))
    add(avgpool2x2_and_global_pool, randn(32, 64, 16, 16))

    # k-means on well separated blobs
    centers = rng.standard_normal((8, 16)) * 5.0
    blob_labels = rng.integers(0, 8, 4096)
    Xk = (centers[blob_labels] + rng.standard_normal((4096, 16))).astype(f32)
    Ck = (centers + 0.5 * rng.standard_normal((8, 16))).astype(f32)
    add(kmeans_assign_update_step, Xk, Ck)

    # kNN (float64, continuous data -> no distance ties)
    class_centers = rng.standard_normal((10, 32)) * 1.5
    ytr = rng.integers(0, 10, 2048).astype(np.int64)
    Xtr = class_centers[ytr] + rng.standard_normal((2048, 32))
    yte = rng.integers(0, 10, 256)
    Xte = class_centers[yte] + rng.standard_normal((256, 32))
    add(knn_classify_majority_vote, Xtr, ytr, Xte, 7, 10)

    # logistic regression
    Xl = rng.standard_normal((1024, 32))
    w_true = rng.standard_normal(32) * 0.5
    yl = (rng.random(1024) < 1.0 / (1.0 + np.exp(-(Xl @ w_true)))).astype(np.int64)
    add(logistic_regression_gd_fit, Xl, yl, 100, 0.5, 1e-3)

    # ridge / polynomial
    Xr = rng.standard_normal((4096, 128))
    yr = Xr @ rng.standard_normal(128) + 0.3 + 0.1 * rng.standard_normal(4096)
    add(ridge_normal_equations_fit, Xr, yr, 1.0)
    xp = rng.uniform(-1, 1, 2048)
    add(polynomial_lstsq_fit, xp, np.sin(3 * xp) + 0.05 * rng.standard_normal(2048), 9)

    # PCA
    Q, _ = np.linalg.qr(rng.standard_normal((64, 64)))
    Xp = (rng.standard_normal((2048, 64)) * np.linspace(4.0, 0.2, 64)) @ Q.T + 1.0
    add(pca_eigh_project, Xp, 8)
    scales = np.ones(256)
    scales[0], scales[1] = 6.0, 3.0
    Xpi = ((rng.standard_normal((2048, 256)) * scales) @ np.linalg.qr(rng.standard_normal((256, 256)))[0].T).astype(f32)
    add(power_iteration_top_component, Xpi, 50)

    # metrics
    yt = rng.integers(0, 20, 8192).astype(np.int64)
    yp = np.where(rng.random(8192) < 0.7, yt, rng.integers(0, 20, 8192)).astype(np.int64)
    add(precision_recall_f1_macro, yt, yp, 20)
    add(confusion_matrix_add_at, yt.astype(np.int32), yp.astype(np.int32), 20)
    yb = rng.integers(0, 2, 4096).astype(np.int64)
    add(roc_auc_by_sorting, yb * 1.0 + rng.standard_normal(4096), yb)
    yll = rng.integers(0, 2, 16384).astype(np.int64)
    pll = 1.0 / (1.0 + np.exp(-(2.0 * (yll - 0.5) * 3.0 + 2.0 * rng.standard_normal(16384))))
    add(binary_log_loss_clipped, yll, pll, 1e-7)

    # embeddings, losses, retrieval, schedules
    add(embedding_masked_mean_pool, randn(10000, 128),
        rng.integers(0, 10000, (256, 32)).astype(np.int64),
        rng.integers(1, 33, 256).astype(np.int32))
    add(label_smoothed_cross_entropy, randn(1024, 512, scale=2.0),
        rng.integers(0, 512, 1024).astype(np.int64), 0.1)
    add(multiclass_focal_loss, randn(2048, 50, scale=2.0),
        rng.integers(0, 50, 2048).astype(np.int32), 0.25, 2.0)
    add(cosine_similarity_topk, rng.standard_normal((128, 128)), rng.standard_normal((4096, 128)), 10)
    add(sinusoidal_pe_add, randn(16, 256, 128, scale=0.02), np.arange(256, dtype=np.int64))
    add(cosine_warmup_lr_schedule, np.arange(20000, dtype=np.int64), 3e-4, 3e-5, 1000, 20000)
    return progs


progs = _make_args()


if __name__ == "__main__":
    import warnings
    warnings.simplefilter("ignore")
    names = [name for name, _, _ in progs]
    assert len(names) == len(set(names)), "duplicate program names"
    for name, fn, args in progs:
        assert name == fn.__name__
        result = fn(*args)
        assert result is not None, name
        print(name)
    print("count:", len(progs))
