"""The composite cover of Theorem 4.2 (Trauger & Tewari, Sec. 4.3, App. E), built and tested.

Lemma E.1 resolutions for the proof's pairs, the proof's certified minima against the printed
constant, the deep hole of the flattened Maurey cover, the families where the cover's parts are
tight, and random networks with their covers: the instances of the Theorem 4.2 checks of
:mod:`attention_theory.trauger.checks.multi_layer` (chapter ``book/trauger/multi-layer.md``).
The cover itself is :func:`attention_theory.trauger.multi_layer.composite_cover`.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import torch

from attention_theory.trauger import model as tm
from attention_theory.trauger import multi_layer_bounds as bm
from attention_theory.trauger.linear_covering import strictly_below
from attention_theory.trauger.multi_layer import composite_cover, l11_ball, lemma_e1_slsqp_minimum, samples
from attention_theory.validation import (
    check_callable,
    check_int,
    check_positive,
    check_real,
    check_rng,
    check_seed,
    refuses_overflow,
)

__all__ = ['composite_cover_trials', 'flat_deep_hole', 'thm42_allocation', 'thm42_certified_minima',
           'thm42_instances', 'thm42_tight_instances']


def thm42_instances(rng: np.random.Generator, count: int) -> list[dict[str, float]]:
    """Parameters of Theorem 4.2's constants: two fixed instances, then ``count`` random ones
    (``C1`` in ``10^U(-1, 2)``, ``CBx/C1`` in ``[0.25, 4]``, ``L`` in 1..5, norms log-uniform)."""
    rng = check_rng(rng)
    keys = ("C1", "CBx", "L", "L_sigma", "B_c2", "B_v2", "B_qk2", "B_w")
    out = [dict(zip(keys, (1.0, 1.0, 1, 1.0, 1.0, 1.0, 0.0, 1.0))),
           dict(zip(keys, (1.0, 4.0, 3, 1.0, 2.0, 0.5, 0.5, 2.0)))]
    for _ in range(check_int(count, "count", minimum=0)):
        C1 = float(10 ** rng.uniform(-1, 2))
        out.append({"C1": C1, "CBx": C1 * float(rng.uniform(0.25, 4)), "L": int(rng.integers(1, 6)),
                    "L_sigma": 1.0, "B_c2": float(10 ** rng.uniform(-0.5, 0.5)),
                    "B_v2": float(10 ** rng.uniform(-0.5, 0.5)), "B_qk2": float(10 ** rng.uniform(-2, 0.5)),
                    "B_w": float(10 ** rng.uniform(-0.5, 0.5))})
    return out

def thm42_certified_minima(seed: int, count: int, *, printed: Callable[..., float],
                           value_layer1: str = "C1") -> dict[str, list]:
    """Theorem 4.2 on :func:`thm42_instances`: keys ``certified`` (the smallest of 3 SLSQP runs of Lemma
    E.1 on the proof's pairs, :func:`~attention_theory.trauger.multi_layer_bounds.thm42_proof_pairs`),
    ``printed`` (``printed(**instance)``), ``proof`` (the proof's constant) and ``instances``."""
    check_callable(printed, "printed")
    if value_layer1 not in ("C1", "CBx"):
        raise ValueError(f"value_layer1 must be 'C1' or 'CBx', got {value_layer1!r}")
    rng = np.random.default_rng(check_seed(seed))
    cert, pr, co = [], [], []
    instances = thm42_instances(rng, count)
    for inst in instances:
        pairs = bm.thm42_proof_pairs(**inst, value_layer1=value_layer1)
        C = np.array([c for _, c, b in pairs if b > 0 and c > 0])
        beta = np.array([b for _, c, b in pairs if b > 0 and c > 0])
        x0s = [rng.dirichlet(np.ones(len(C))) for _ in range(3)]
        cert.append(min(lemma_e1_slsqp_minimum(C, beta, 1.0, x0) for x0 in x0s))
        pr.append(printed(**inst))
        co.append(bm.thm42_proof_constant(**inst, value_layer1=value_layer1))
    return {"certified": cert, "printed": pr, "proof": co, "instances": instances}

@refuses_overflow
def thm42_allocation(L: int, d: int, k: int, B: float, target: float) -> tuple[float, list, dict[str, float]]:
    """``C1`` (the largest Lemma 3.6 class constant), the proof's pairs ``(name, C_j, beta_j)`` and their
    Lemma E.1 resolutions ``{name: eps_j}`` for target ``target`` (``L_sigma = 1``, every spectral
    bound and ``B_w`` equal to ``B``): the composite cover of Theorem 4.2."""
    target = check_positive(target, "target")
    cc = bm.lemma36_class_constants(d, k, B)
    C1 = max(cc["W_c"], cc["W_v"], cc["W_QK"], cc["w"])
    pairs = bm.thm42_proof_pairs(C1, C1, L, 1.0, B, B, B, B)
    alloc = bm.lemma_e1_allocation([c for _, c, _ in pairs], [b for _, _, b in pairs], target)
    return C1, pairs, dict(zip([n for n, _, _ in pairs], (float(a) for a in alloc)))

def flat_deep_hole(shape: tuple[int, int], B: float) -> np.ndarray:
    """``(B/2)(E_11 + E_12)`` (or ``(B/2)(E_11 + E_21)`` for a single column): the K = 1 deep hole of the
    flattened Maurey cover.  With one greedy step the candidates are ``0`` and the atoms ``+-B E_ij``; for
    ``s = ||W||_F^2`` the errors are ``s`` and at best ``s - 2 B max|W_ij| + B^2 >= B^2 - s`` (as
    ``s <= B max|W_ij|`` on the ball), so no point is farther than ``B/sqrt 2`` from its cover element,
    and this one is exactly that far (both errors equal ``B^2/2``; the difference has rank one, so its
    spectral norm is its Frobenius norm).  ``shape`` has 2 entries or more in total."""
    if not isinstance(shape, (tuple, list)) or len(shape) != 2:
        raise TypeError(f"shape must be a pair (rows, columns), got {shape!r}")
    shape = (check_int(shape[0], "shape[0]"), check_int(shape[1], "shape[1]"))
    if shape == (1, 1):
        raise ValueError("shape must hold at least 2 entries, got (1, 1)")
    B = check_positive(B, "B")
    M = np.zeros(shape)
    M[0, 0] = B / 2
    M[(0, 1) if shape[1] >= 2 else (1, 0)] = B / 2
    return M

@refuses_overflow
def thm42_tight_instances(eps_factor: float, cover_coarsening: float, certificate_factor: float,
                          B: float, d: int, k: int) -> dict[str, Any]:
    """The families where the parts of the check ``composite-cover`` of Theorem 4.2 are tight or attained.

    *Read-out equality* (part ``composite-cover-realised``, ratio exactly 1): every layer matrix a
    vertex or zero (``W_QK = 0``, ``W_v = B E_11``, ``W_c = B E_11``), which the greedy cover
    reproduces exactly (``sup_err = 0``), so the certificate is ``beta_w sup_err_w = ||w - hat w||``
    (``beta_w = 1``); ``w = (t B, 0)`` errs only along ``e_1``; with ReLU, ``B = 1`` and every token
    ``e_1`` each layer maps the all-``e_1`` input to itself, so the [CLS] output is the unit vector
    ``e_1`` and ``|w^T g - hat w^T g| = ||w - hat w||``.  ``L in {1, 2}``, ``t in {0.3, 0.7}``,
    ``eps in {0.6, 1.2}``.

    *All-deep-hole network* (parts ``composite-cover-per-matrix`` and the main record): ``L = 1``,
    every matrix :func:`flat_deep_hole` and ``eps`` the smallest at which every Lemma E.1 resolution
    is at least ``B`` (so every ``K_j = 1``).  The smallest resolution, ``W_QK``'s (its ``beta`` is
    twice the others'), is ``B``: ratio ``1/sqrt 2``; the others are ``2^(1/3) B`` (the allocation
    goes like ``beta^(-1/3)`` when the class constants are equal), ratio ``2^(-1/3)/sqrt 2``; the
    certificate over ``eps`` is their ``beta``-weighted mean, ``0.612``.
    """
    eps_factor = check_positive(eps_factor, "eps_factor")
    cover_coarsening = check_positive(cover_coarsening, "cover_coarsening")
    certificate_factor = check_real(certificate_factor, "certificate_factor")
    d, k = check_int(d, "d", minimum=2), check_int(k, "k")
    out: dict[str, Any] = {"real_l": [], "real_r": [], "per_l": [], "per_r": [], "cert": [], "eps": [],
                           "per_ratio": {}}
    e1 = torch.zeros(3, d, dtype=torch.float64)
    e1[:, 0] = 1.0
    for L in (1, 2):
        for eps in (0.6, 1.2):
            _, pairs, alloc = thm42_allocation(L, d, k, B, eps * eps_factor)
            names, betas = [n for n, _, _ in pairs], {n: b for n, _, b in pairs}
            Wqk, Wv, Wc = np.zeros((d, d)), np.zeros((d, k)), np.zeros((k, d))
            Wv[0, 0] = Wc[0, 0] = B
            layers = [tm.Layer(*[torch.as_tensor(M) for M in (Wqk, Wv, Wc)]) for _ in range(L)]
            for t in (0.3, 0.7):
                w = np.zeros(d)
                w[0] = t * B
                hat, w_hat, _, sup_err = composite_cover(layers, w, B,
                                                         {n: cover_coarsening * alloc[n] for n in names},
                                                         {n: 1.0 for n in names})
                cert = sum(betas[n] * sup_err[n] for n in names)
                diff = (tm.scalar_output(layers, torch.as_tensor(w), e1, "relu")
                        - tm.scalar_output(hat, torch.as_tensor(w_hat), e1, "relu"))
                out["real_l"].append(float(torch.abs(diff)))
                out["real_r"].append(certificate_factor * cert)
    _, _, a1 = thm42_allocation(1, d, k, B, 1.0)
    eps = B / min(a1.values()) * (1 + 1e-9) / eps_factor  # every resolution >= B: K_j = 1
    _, pairs, alloc = thm42_allocation(1, d, k, B, eps * eps_factor)
    names, betas = [n for n, _, _ in pairs], {n: b for n, _, b in pairs}
    layers = [tm.Layer(*[torch.as_tensor(flat_deep_hole(s, B)) for s in ((d, d), (d, k), (k, d))])]
    _, _, _, sup_err = composite_cover(layers, flat_deep_hole((1, d), B)[0], B,
                                       {n: cover_coarsening
                                        * alloc[n] for n in names}, {n: 1.0 for n in names})
    for n in names:
        out["per_l"].append(sup_err[n])
        out["per_r"].append(strictly_below(alloc[n]))
        out["per_ratio"][n] = sup_err[n] / alloc[n]
    out["cert"].append(sum(betas[n] * sup_err[n] for n in names))
    out["eps"].append(strictly_below(eps))
    return out

def composite_cover_trials(seed: int, count: int, n_inputs: int, *, eps_factor: float = 1.0,
                           cover_coarsening: float = 1.0, certificate_factor: float = 1.0,
                           size_constant: Callable[..., float] = bm.thm42_proof_constant) -> dict[str, Any]:
    """Theorem 4.2's cover built on ``count`` random networks (``L`` in ``{1, 2}``, ``d = k = 2``,
    matrices in 0.5..1 of the (1,1) ball of ``B = 1``, relu / tanh in turn, ``T`` in ``{3, 6}``),
    ``eps`` in ``U(0.6, 1.2)``, each matrix covered at ``cover_coarsening`` times its Lemma E.1
    resolution for target ``eps_factor eps`` (:func:`composite_cover`).  Keys: ``per`` /
    ``per_rhs`` (each matrix's sup error and its resolution, strictly), ``certified`` / ``eps``
    (``sum_j beta_j sup_err_j`` and ``eps``), ``sizes`` / ``size_rhs`` (log-size and
    ``size_constant(C1, ...)/(eps_factor eps)^2 + ceilings``), ``realised`` / ``real_rhs`` (``|g -
    hat g|`` on ``n_inputs`` random inputs each and ``certificate_factor`` times the certificate) and
    ``nets`` (``(layers, w, hat layers, hat w, sigma, T, certificate, eps)`` per network)."""
    eps_factor = check_positive(eps_factor, "eps_factor")
    cover_coarsening = check_positive(cover_coarsening, "cover_coarsening")
    certificate_factor = check_real(certificate_factor, "certificate_factor")
    check_callable(size_constant, "size_constant")
    n_inputs = check_int(n_inputs, "n_inputs")
    rng = np.random.default_rng(check_seed(seed))
    certified, eps_list, realised, real_rhs, per, per_rhs, sizes, size_rhs = ([] for _ in range(8))
    B, d, k = 1.0, 2, 2
    nets = []
    for trial in range(check_int(count, "count", minimum=0)):
        L, T = int(rng.integers(1, 3)), int(rng.choice([3, 6]))
        sigma = ("relu", "tanh")[trial % 2]
        eps = float(rng.uniform(0.6, 1.2))
        C1, pairs, alloc = thm42_allocation(L, d, k, B, eps * eps_factor)
        names, betas = [n for n, _, _ in pairs], {n: b for n, _, b in pairs}
        radius = {n: 1.0 for n in names}
        layers = [tm.Layer(*[torch.as_tensor(l11_ball(rng, s, B)) for s in ((d, d), (d, k), (k, d))])
                  for _ in range(L)]
        w = l11_ball(rng, (1, d), B)[0]
        hat, w_hat, logsize, sup_err = composite_cover(layers, w, B,
                                                       {n: cover_coarsening * alloc[n] for n in names},
                                                       radius)
        per += [sup_err[n] for n in names]
        per_rhs += [strictly_below(alloc[n]) for n in names]
        cert = sum(betas[n] * sup_err[n] for n in names)
        certified.append(cert)
        eps_list.append(strictly_below(eps))
        sizes.append(logsize)
        size_rhs.append(size_constant(C1, C1, L, 1.0, B, B, B, B) / (eps * eps_factor) ** 2
                        + sum(math.log(2 * n + 1) for n in [d] + [d * d, d * k, k * d] * L))
        w_t, wh_t = torch.as_tensor(w), torch.as_tensor(w_hat)
        for X in samples(rng, n_inputs, T, d, 1.0):
            realised.append(float(torch.abs(tm.scalar_output(layers, w_t, X, sigma)
                                            - tm.scalar_output(hat, wh_t, X, sigma))))
            real_rhs.append(certificate_factor * cert)
        nets.append((layers, w_t, hat, wh_t, sigma, T, cert, eps))
    return {"per": per, "per_rhs": per_rhs, "certified": certified, "eps": eps_list, "sizes": sizes,
            "size_rhs": size_rhs, "realised": realised, "real_rhs": real_rhs, "nets": nets}
