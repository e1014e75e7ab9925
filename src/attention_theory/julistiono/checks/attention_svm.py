"""Checks of the chapter ``book/julistiono/attention-svm.md``: Julistiono, Tarzanagh & Azizan on the
attention model, Assumption A, Definition 3, Lemmas 16-21 (objective, gradient, the Bregman cone
around the l_p-AttSVM solution) and the sub-equations (12)-(21).

All displayed statements are reconstructions (``claims-julistiono.md``); constants such as
``c_+``, ``c_-``, ``c_2``, ``R_delta`` and ``R_eps`` are the book's own derivation, not the
paper's.  Quantities that underflow at large ``||W||`` (the gradient is ``~ e^{-rho}``) are
evaluated in the log domain by :func:`~attention_theory.julistiono.attention.scaled_correlation`.
The cone points and search objectives live in :mod:`attention_theory.julistiono.cone_search`,
Lemma 18's in :mod:`attention_theory.julistiono.attention`; the negative controls are in
``tests/julistiono/test_nc_attention_svm.py``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any, Callable

import numpy as np
import torch

from attention_theory.config import pick
from attention_theory.foundations.mirror import conjugate_exponent, entrywise_lp, grad_psi
from attention_theory.julistiono import attention, cone_search
from attention_theory.julistiono import model as mj
from attention_theory.julistiono.attention import (
    LEMMA19_PS,
    cone_instance,
    cone_samples,
    grad_autograd,
    lemma17_bound,
    lemma20_constants,
    lemma21_lower_bound,
    lemma21_R_eps,
    scaled_correlation,
)
from attention_theory.julistiono.cone_search import (
    CONE_SHAPES,
    CONE_SHAPES_FULL,
    cone_init,
    search_instances,
    seed_range,
)
from attention_theory.julistiono.svm import is_locally_optimal, lp_att_svm, support_tokens
from attention_theory.search import maximize_over_sizes, numpy_objective
from attention_theory.verify import CheckRecord, check_bound, check_identity, claim_check, limit_sequence

#: ``{loss: (l, l')}`` for every loss of the model: the default of :func:`check_assumption_A`.
_LOSS_FNS: dict[str, tuple[Callable, Callable]] = {
    name: (functools.partial(mj.loss_value, loss=name), functools.partial(mj.loss_derivative, loss=name))
    for name in mj.LOSSES
}


@claim_check("julistiono-assum-a", "loss-properties", parts=("loss-derivative",))
def check_assumption_A(*, losses: dict[str, tuple[Callable, Callable]] | None = None,
                       seed: int = 20) -> CheckRecord:
    """For each loss on the score interval ``[min gamma, max gamma]`` (1e5-point grid): ``l'`` matches
    finite differences of ``l``, ``l' < 0`` (strictly decreasing), and ``l'`` is Lipschitz with the
    constant ``M_0`` measured on the grid (recorded with ``M_1 = max |l'|``)."""
    losses = _LOSS_FNS if losses is None else losses
    inst = mj.synthetic_dataset(seed)
    gamma = mj.scores(inst["X"], inst["Y"], inst["v"])
    u = np.linspace(gamma.min(), gamma.max(), pick(10000, 100000))
    lhs, rhs, consts, fd = [], [], {}, []
    for name, (f, df) in losses.items():
        g = np.asarray(df(u))
        h = 1e-6
        fd.extend(np.abs((f(u + h) - f(u - h)) / (2 * h) - g) / (1 + np.abs(g)))
        lhs.extend(np.full(u.size, 1e-12))
        rhs.extend(-g)
        M0 = float(np.max(np.abs(np.diff(g)) / np.diff(u)))
        consts[name] = {"M1": float(np.max(np.abs(g))), "M0_grid": M0, "min_minus_dl": float(np.min(-g))}
    grid = (f"{u.size}-point grid of the score interval [min gamma, max gamma] of data set {seed} "
            f"(6, 8, 10), losses {', '.join(losses)}")
    check_bound(fd, 1e-6, "l' agrees with central differences of l", check="loss-derivative", seed=seed,
                families=["central differences (h = 1e-6) of l on the " + grid],
                no_search="l' = dl/du is an identity; the bound is the accuracy of a central difference "
                          "(truncation h^2 times the third derivative, rounding eps/h), evaluated on a dense "
                          "grid of the whole score interval: maximising it would search for the finite "
                          "difference's error, not for a counterexample")

    # adversarial: minimise -l'(u) over the score interval (u = lo + (hi - lo) sigmoid(x)), per loss
    lo_u, hi_u = float(u[0]), float(u[-1])

    def ratio(name: str, x: np.ndarray) -> float:
        u_x = np.array([lo_u + (hi_u - lo_u) / (1 + np.exp(-x[0]))])
        v = -float(np.asarray(losses[name][1](u_x)).ravel()[0])
        return 1e-12 / v if v > 0 else 1e12 * (1 + abs(v))   # -l' <= 0: a violation, kept above 1

    res = maximize_over_sizes(numpy_objective(ratio), lambda name, g: g.normal(0, 3, 1), list(losses),
                              restarts=pick(3, 20), steps=pick(30, 200), seed=seed)
    lhs.extend(res.per_size.values())
    rhs.extend(np.ones(len(res.per_size)))
    return check_bound(lhs, rhs, "-l'(u) > 0 on the score interval (strictly decreasing losses)",
                       seed=seed, extra={"constants": consts, "interval": [lo_u, hi_u]}, search=res,
                       families=["-l'(u) on the " + grid,
                                 "adversarial L-BFGS + Nelder-Mead over u in the score interval, per loss"])


@claim_check("julistiono-def-3", "support-kkt")
def check_def3(*, kkt_rows: str = "support", p: float = 1.75, seed: int = 21) -> CheckRecord:
    """For random instances: support sets from primal slacks and from dual variables agree (degenerate
    instances flagged and skipped); KKT: ``grad ||.||_p(W^mm)`` is a non-negative combination of the
    ``kkt_rows`` constraint gradients (``"support"``); globally optimal ``alpha`` is locally optimal; a
    non-global locally optimal ``alpha`` is constructed."""
    from scipy.optimize import nnls

    resid, agree, flagged, local_found = [], 0, 0, 0
    for s in range(seed, seed + pick(5, 50)):
        inst = cone_instance(s, p)
        sol = inst.sol
        dual_sup = np.nan_to_num(sol.duals, nan=0.0) > 1e-7 * np.nanmax(sol.duals)
        if not np.array_equal(dual_sup, inst.support):
            flagged += 1
            continue
        agree += 1
        rows = inst.support if kkt_rows == "support" else inst.nonsupport
        n, T, d = inst.X.shape
        M = np.stack([np.outer(inst.X[i, inst.alpha[i]] - inst.X[i, t], inst.z[i]).ravel()
                      for i in range(n) for t in range(T) if rows[i, t]], axis=1)
        g = grad_psi(sol.W, p).ravel() / sol.norm ** (p - 1)
        lam, r = nnls(M, g)
        resid.append(r / np.linalg.norm(g))
        if not inst.locally_optimal:
            raise AssertionError("globally optimal alpha failed the local-optimality test")
        # a non-global locally optimal alpha: move one alpha_i to its second-best token
        gamma = inst.gamma
        for i in range(pick(2, n)):
            alt = inst.alpha.copy()
            alt[i] = int(np.argsort(gamma[i])[-2])
            try:
                sol2 = lp_att_svm(inst.X, inst.z, alt, p)
            except RuntimeError:
                continue
            if is_locally_optimal(gamma, alt, support_tokens(sol2, inst.X, inst.z)):
                local_found += 1
                break
    return check_bound(resid, 1e-4, f"KKT residual of W^mm with {kkt_rows} constraints (relative, NNLS; "
                       "solver accuracy ~1e-5)",
                       atol=0.0, seed=seed,
                       no_search="the KKT conditions hold exactly at the l_p-AttSVM optimum; the bound is "
                                 "the accuracy of the convex solver and of NNLS on each data set, and every "
                                 "evaluation is a full SVM solve whose support sets jump with the data (no "
                                 "continuous objective to maximise): the instances are the E1 data sets",
                       extra={"instances_agreeing": agree, "degenerate_flagged": flagged,
                              "non_global_locally_optimal_found": local_found},
                       families=[f"E1 data sets {seed_range(seed, pick(5, 50))}, (n, T, d) = (6, 8, 10), "
                                 f"p = {p}, globally optimal alpha, instances whose primal and dual support "
                                 "sets agree"])


@claim_check("julistiono-lemma-16", "objective-bounds")
def check_lemma16(*, lower_fn: Callable = np.max, upper_fn: Callable = np.min, seed: int = 22) -> CheckRecord:
    """``mean_i l(max_t gamma_it) <= L(W) <= mean_i l(min_t gamma_it)`` for random ``W``
    (``||W||_F`` 1e-3 ... 1e3) and for ``W`` maximising either ratio (L-BFGS and Nelder-Mead, data
    sets of several sizes, the smallest ``(n, T, d) = (1, 2, 1)`` included)."""
    data = mj.synthetic_dataset(seed)
    X, z, Y, v = data["X"], data["z"], data["Y"], data["v"]
    gamma = mj.scores(X, Y, v)
    lo = float(np.mean(mj.loss_value(lower_fn(gamma, axis=1))))
    hi = float(np.mean(mj.loss_value(upper_fn(gamma, axis=1))))
    rng = np.random.default_rng(seed)
    vals = []
    for _ in range(pick(200, 2000)):
        W = rng.standard_normal((10, 10))
        vals.append(mj.objective(W * 10 ** rng.uniform(-3, 3) / np.linalg.norm(W), X, z, Y, v))
    vals = np.asarray(vals)
    # adversarial: L-BFGS and Nelder-Mead maximise l(max gamma) / L(W) and L(W) / l(min gamma) over W
    # on data sets with (n, T, d) = (1, 2, 1), (2, 3, 2), (3, 4, 3) (and the check's own at full scale)
    data_s = {size: mj.synthetic_dataset(seed, *size) for size in ((1, 2, 1), (2, 3, 2), (3, 4, 3))}
    if pick(False, True):
        data_s[X.shape] = data
    ends = {}
    for size, dd in data_s.items():
        g = mj.scores(dd["X"], dd["Y"], dd["v"])
        ends[size] = (float(np.mean(mj.loss_value(lower_fn(g, axis=1)))),
                      float(np.mean(mj.loss_value(upper_fn(g, axis=1)))))
    tens = {size: [torch.as_tensor(dd[k]) for k in ("X", "z", "Y", "v")] for size, dd in data_s.items()}
    fast = {size: mj.make_gradient(dd["X"], dd["z"], dd["Y"], dd["v"]) for size, dd in data_s.items()}

    def ratio(size: tuple[tuple[int, int, int], str], x: Any) -> Any:
        shape, side = size
        d = shape[2]
        if isinstance(x, torch.Tensor):
            L = mj.objective_torch(x.reshape(d, d), *tens[shape])
        else:   # the same objective from the margins u_i of the numpy closure (Nelder-Mead)
            L = float(np.mean(mj.loss_value(fast[shape](np.reshape(x, (d, d)))[1])))
        lo_s, hi_s = ends[shape]
        return lo_s / L if side == "lower" else L / hi_s

    res = maximize_over_sizes(ratio, lambda size, r: r.standard_normal(size[0][2] ** 2) * 3,
                              [(shape, side) for shape in data_s for side in ("lower", "upper")],
                              restarts=pick(2, 20), steps=pick(15, 200), seed=seed)
    adv = np.asarray(list(res.per_size.values()))
    return check_bound(np.concatenate([np.full(vals.size, lo), vals, adv]),
                       np.concatenate([vals, np.full(vals.size, hi), np.ones(adv.size)]),
                       "l(max gamma) <= L(W) <= l(min gamma) (random + adversarial W)",
                       rtol=1e-12, seed=seed, extra={"lower": lo, "upper": hi, "min_L": float(vals.min()),
                                                   "max_L": float(vals.max())}, search=res,
                       families=[f"random W, ||W||_F 1e-3 ... 1e3, on data set {seed} (6, 8, 10)",
                                 "adversarial L-BFGS + Nelder-Mead over W on data sets (1, 2, 1), (2, 3, 2), "
                                 "(3, 4, 3) (and (6, 8, 10) at full scale), both sides"])


def _grad_default(W, X, z, Y, v, loss):
    return mj.gradient_W(W, X, z, Y, v, loss=loss)


@claim_check("julistiono-lemma-17", "gradient-formula")
def check_lemma17(*, grad_fn: Callable = _grad_default, seed: int = 23) -> CheckRecord:
    """Lemma 17's gradient (``grad_fn``) against ``torch.autograd`` for three losses, shapes
    ``(n, T, d) in {(1,2,2), (6,8,10), (20,16,8)}`` and ``||W||_F in {1e-2, 1, 10}``; the naive and the
    stable softmax backward agree there too (relative error <= 1e-10)."""
    rng = np.random.default_rng(seed)
    errs = []
    for n, T, d in ((1, 2, 2), (6, 8, 10), (20, 16, 8)):
        data = mj.synthetic_dataset(int(rng.integers(1000)), n, T, d)
        X, z, Y, v = data["X"], data["z"], data["Y"], data["v"]
        for loss in mj.LOSSES:
            for nrm in (1e-2, 1.0, 10.0):
                W = rng.standard_normal((d, d))
                W *= nrm / np.linalg.norm(W)
                ref = grad_autograd(W, X, z, Y, v, loss)
                sc = max(np.abs(ref).max(), 1e-300)
                errs.append(np.abs(grad_fn(W, X, z, Y, v, loss) - ref).max() / sc)
                errs.append(np.abs(mj.gradient_W(W, X, z, Y, v, loss=loss, stable=False) - ref).max() / sc)
    return check_bound(errs, 1e-10, "Lemma 17 vs autograd (max relative error)", rtol=0.0, seed=seed,
                       families=["random W, (n, T, d) in {(1, 2, 2), (6, 8, 10), (20, 16, 8)}, ||W||_F in "
                                 "{1e-2, 1, 10}, logistic / exponential / correlation losses, the given and "
                                 "the naive softmax backward"],
                       no_search="Lemma 17 is an exact identity (closed form = gradient), checked to "
                                 "round-off at random W for shapes from the smallest (1, 2, 2), norms 1e-2 "
                                 "... 10 and three losses: a wrong formula fails at generic W (the negative "
                                 "controls), and the residual of the right one is float64 rounding, which a "
                                 "search would maximise as rounding, not as a counterexample")


@claim_check("julistiono-lemma-18", "gradient-bound", parts=("softmax-jacobian-norm",))
def check_lemma18(*, scale: float = 1.0, jacobian_bound: float = 0.5, seed: int = 24) -> CheckRecord:
    """``||S'(h)||_2 <= 1/2``; ``||grad L||_F <= G = M_1/(2n) sum_i ||X_i||_2 ||gamma_i||_2 ||z_i||_2``,
    every entry ``<= G`` and ``||grad L||_q <= D^max(0, 1/q - 1/2) G`` (``scale`` multiplies ``G``), on
    random and adversarial ``W`` (L-BFGS and Nelder-Mead maximising ``||grad L||_F / G`` and the
    ``l_{3/2}`` ratio over ``W`` on data sets of several sizes, and over the data ``(X, z, v)`` and
    ``W`` together at ``(n, T, d) = (1, 2, 1), (2, 3, 2), (3, 4, 3)``; the softmax Jacobian norm
    likewise over logits, ``T in {2, 3, 6}``), and along the tight family
    :func:`~attention_theory.julistiono.attention.lemma18_tight_instance` (``a -> infinity``, ratio
    ``-> 1``: ``G`` is sharp, recorded as a limit sequence)."""
    rng = np.random.default_rng(seed)
    from attention_theory.foundations.softmax import softmax_jacobian

    H = rng.standard_normal((pick(10000, 100000), 6)) * 10 ** rng.uniform(-1, 1.5, size=(1, 1))
    jn = list(np.linalg.norm(softmax_jacobian(H), ord=2, axis=(-2, -1)))

    # adversarial: maximise ||diag(s) - s s^T||_2 / bound over the logits, T in {2, 3, 6}
    def jac_ratio(T: int, h: Any) -> Any:
        if isinstance(h, torch.Tensor):
            s_ = torch.softmax(h, 0)
            return torch.linalg.eigvalsh(torch.diag(s_) - torch.outer(s_, s_))[-1] / jacobian_bound
        e = np.exp(h - np.max(h))
        s_ = e / e.sum()
        return float(np.linalg.eigvalsh(np.diag(s_) - np.outer(s_, s_))[-1]) / jacobian_bound

    jres = maximize_over_sizes(jac_ratio, lambda T, g: g.normal(0, 2, T), (2, 3, 6), restarts=pick(3, 20),
                               steps=pick(30, 200), seed=seed)
    jn.extend(v * jacobian_bound for v in jres.per_size.values())
    check_bound(jn, jacobian_bound, "||diag(s) - s s^T||_2 <= 1/2 on random and adversarial logits",
                check="softmax-jacobian-norm", seed=seed, params={"bound": jacobian_bound}, search=jres,
                families=[f"{H.shape[0]} random Gaussian logit vectors, T = 6, one common scale "
                          "10^U(-1, 1.5)",
                          "adversarial L-BFGS + Nelder-Mead over the logits, T in {2, 3, 6}"])
    data = mj.synthetic_dataset(seed)
    X, z, Y, v = data["X"], data["z"], data["Y"], data["v"]
    n, T, d = X.shape

    def G_of(dd: dict[str, np.ndarray]) -> float:
        return attention.lemma18_constant(dd, scale)

    G = G_of(data)
    lhs, rhs = [], []
    for p in (1.25, 1.75, 2.0, 3.0):
        q = conjugate_exponent(p)
        fac = (d * d) ** max(0.0, 1 / q - 0.5)
        for _ in range(pick(100, 1000)):
            W = rng.standard_normal((d, d)) * 10 ** rng.uniform(-2, 2)
            g = mj.gradient_W(W, X, z, Y, v)
            lhs += [np.linalg.norm(g), np.abs(g).max(), entrywise_lp(g, q)]
            rhs += [G, G, fac * G]

    # adversarial, L-BFGS (autograd of the gradient norm) and Nelder-Mead, maximising ||grad L||_F / G
    # and ||grad L||_q / (D^(1/q - 1/2) G) at q = 3/2 (the l_q part with the largest factor checked):
    # mode "W" moves W on the data sets (n, T, d) = (1, 2, 1), (2, 3, 2), (3, 4, 3) and, at full scale,
    # the check's own (Nelder-Mead in its 100 dimensions is too slow for the smoke scale); mode
    # "data" moves the tokens X, queries z, decoder v and W together (labels Y fixed) at the three
    # small sizes
    data_s = {size: mj.synthetic_dataset(seed, *size) for size in ((1, 2, 1), (2, 3, 2), (3, 4, 3))}
    small = list(data_s)
    if pick(False, True):
        data_s[X.shape] = data
    sizes = ([(shape, kind, "W") for shape in data_s for kind in ("F", "q=1.5")]
             + [(shape, kind, "data") for shape in small for kind in ("F", "q=1.5")])
    Gs = {size: G_of(dd) for size, dd in data_s.items()}
    tens = {size: [torch.as_tensor(dd[k]) for k in ("X", "z", "Y", "v")] for size, dd in data_s.items()}
    fast = {size: mj.make_gradient(dd["X"], dd["z"], dd["Y"], dd["v"]) for size, dd in data_s.items()}
    Ys = {shape: data_s[shape]["Y"] for shape in small}
    gnorm = functools.partial(attention.lemma18_search_ratio, labels=Ys, gradients=fast, tensors=tens,
                              constants=Gs, scale=scale)
    res = maximize_over_sizes(gnorm, attention.lemma18_search_start, sizes, restarts=pick(2, 20),
                              steps=pick(15, 100), seed=seed)
    lhs.extend(res.per_size.values())
    rhs.extend(np.ones(len(res.per_size)))
    # the largest ||grad L||_F found on the check's own data set (random W; the search too at full scale)
    max_F = max(lhs[0:len(rhs) - len(res.per_size):3])
    if str((X.shape, "F", "W")) in res.per_size:
        max_F = max(max_F, res.per_size[str((X.shape, "F", "W"))] * G)

    # the tight family (a limit): one sample, two tokens x = (a, -a) in d = 1, v = z = Y = 1 and
    # W = -a^(-3/2), so the logits are -+ a^(-1/2): the attention is nearly uniform
    # (||S'(h)||_2 -> 1/2, gamma = (a, -a) along its top eigenvector (1, -1)) yet tilted to the
    # wrong token enough that the margin ~ -sqrt(a) makes |l'| -> 1; ratio = sigma(a tanh a^(-1/2))
    # sech^2(a^(-1/2)) -> 1 (at d = 1 the entry and l_q ratios are the same number).  With W = c/a at a
    # fixed c the ratio tends to sech^2(c) < 1 only: c has to shrink while a c grows.
    a_vals = [10.0 ** k for k in range(1, 6)]
    tight = []
    for a in a_vals:
        dd = attention.lemma18_tight_instance(a)
        gF = float(np.linalg.norm(mj.gradient_W(dd["W"], dd["X"], dd["z"], dd["Y"], dd["v"])))
        lhs.append(gF)
        rhs.append(G_of(dd))
        tight.append(gF / G_of(dd))
    fam = "n = 1, T = 2, d = 1, tokens (a, -a), v = z = Y = 1, W = -a^(-3/2)"
    # a wrong (smaller) constant puts these ratios above 1: the bound check below then fails on them,
    # and no limit is claimed
    limits = ([limit_sequence(fam, "a -> infinity", a_vals, tight, supremum=1.0)]
              if max(tight) <= 1.0 + 1e-9 else None)
    return check_bound(lhs, rhs, "gradient bound G of Lemma 18 (Frobenius, entries, l_q)", seed=seed,
                       extra={"G": G, "adversarial_max_grad_F": max_F}, search=res,
                       families=["random W, ||W|| 1e-2 ... 1e2, on the check's data set (6, 8, 10), "
                                 "p in {1.25, 1.75, 2, 3}",
                                 "adversarial L-BFGS + Nelder-Mead over W on fixed data sets (1, 2, 1), "
                                 "(2, 3, 2), (3, 4, 3) (and (6, 8, 10) at full scale), Frobenius and l_{3/2}",
                                 "adversarial L-BFGS + Nelder-Mead over the data (X, z, v) and W together, "
                                 "(n, T, d) = (1, 2, 1), (2, 3, 2), (3, 4, 3), Frobenius and l_{3/2}",
                                 fam + ", a = 10 ... 1e5"],
                       limits=limits)


@claim_check("julistiono-lemma-19", "cone-margins", parts=(("julistiono-eq-12", "three-inequalities"),))
def check_lemma19(*, mu_factor: float = 1.0, ps: tuple[float, ...] = LEMMA19_PS, margin: float = 1.5,
                  seed: int = 25) -> CheckRecord:
    """For ``W`` in ``S_{p, mu}`` with ``mu = mu_factor * mu0`` (random interior/boundary points and the
    adversarial boundary directions): ``||Wbar - W^mm||_p <= delta/(2A)``, the perturbation of every
    constraint is ``<= delta/2`` (the record of this check, asserted first), and (12a)-(12c) with the
    constant ``margin = 3/2`` of ``(12a)``/``(12b)`` (part ``julistiono-eq-12 / three-inequalities``).

    Both are also searched (L-BFGS with central differences and Nelder-Mead) over the cone, a point
    ``(U, s)`` mapped to the unit-norm matrix on the ray ``What^mm + t U`` at divergence
    ``sigmoid(s) mu``, on data sets of ``(n, T, d) = (1, 2, 2)`` and ``(2, 3, 2)`` (two more at full
    scale), for every other ``p`` (every ``p`` at full scale)."""
    rng = np.random.default_rng(seed)
    lhs, rhs, info = [], [], {}
    m12 = {"12a": ([], []), "12b": ([], []), "12c": ([], [])}
    for p in ps:
        for s in range(seed, seed + pick(1, 6)):
            inst = cone_instance(s, p)
            mu = mu_factor * inst.mu0
            for Wh in cone_samples(inst, mu, rng, pick(10, 60)):
                a, b, m = cone_search.lemma19_terms(inst, Wh, margin)
                lhs.extend(a)
                rhs.extend(b)
                for k in m12:
                    m12[k][0].extend(m[k][0])
                    m12[k][1].extend(m[k][1])
            info[f"p={p},seed={s}"] = {"delta": inst.delta, "A": inst.A, "mu0": inst.mu0,
                                       "norm_mm": inst.norm_mm}
    insts = search_instances(seed, pick(tuple(ps[::2]), ps), pick(CONE_SHAPES, CONE_SHAPES_FULL))

    def objective(part: str) -> Callable:
        def f(size: tuple[float, tuple[int, int, int]], x: np.ndarray) -> float:
            inst = insts[size]
            d2 = inst.X.shape[-1] ** 2
            Wh = cone_search.cone_map(inst, x[:d2].reshape(inst.Wmm.shape), 1 / (1 + math.exp(-x[d2])),
                                      mu_factor * inst.mu0)
            a, b, m = cone_search.lemma19_terms(inst, Wh, margin)
            if part == "main":
                return cone_search.worst_ratio(a, b)
            return cone_search.worst_ratio(sum((m[k][0] for k in m), []), sum((m[k][1] for k in m), []))
        return numpy_objective(f)

    init = cone_init(1, 0)
    budget = {"restarts": pick(1, 4), "steps": pick(6, 16), "seed": seed}
    res = maximize_over_sizes(objective("main"), init, list(insts), **budget)
    res12 = maximize_over_sizes(objective("12"), init, list(insts), **budget)
    lhs.extend(res.per_size.values())
    rhs.extend(np.ones(len(res.per_size)))
    fam19 = [f"cone samples (random directions at levels U(0.05, 1) mu, adversarial constraint directions "
             f"on the boundary D = mu) on E1 data sets {seed_range(seed, pick(1, 6))} (6, 8, 10), p in "
             f"{tuple(ps)}, mu = {mu_factor:g} mu0",
             "adversarial L-BFGS + Nelder-Mead over the cone point (direction, level) on data sets "
             f"{', '.join(str(sh) for sh in sorted({k[1] for k in insts}))}, p in "
             f"{tuple(sorted({k[0] for k in insts}))}"]
    rec = check_bound(lhs, rhs, "||Wbar - W^mm||_p <= delta/(2A) and constraint perturbation <= delta/2",
                      rtol=1e-9, atol=1e-13, seed=seed, params={"mu_factor": mu_factor},
                      extra={"instances": info}, search=res, families=fam19)
    check_bound(np.concatenate([m12[k][0] for k in m12] + [list(res12.per_size.values())]),
                np.concatenate([m12[k][1] for k in m12] + [np.ones(len(res12.per_size))]),
                "(12a)-(12c) in the Bregman cone", rtol=1e-9, atol=1e-12,
                claim_id="julistiono-eq-12", check="three-inequalities", seed=seed,
                params={"mu_factor": mu_factor, "margin": margin}, search=res12, families=fam19)
    return rec


_L20_PARTS = (("julistiono-eq-13", "correlation-formula"), ("julistiono-eq-14", "covariance-identity"),
              ("julistiono-eq-16", "softmax-ratios"), ("julistiono-eq-17", "combined-lower-bound"),
              ("julistiono-eq-18", "c-plus-positive"))


@claim_check("julistiono-lemma-20", "positive-correlation", parts=_L20_PARTS)
def check_lemma20(*, alpha_rule: str = "global", p: float = 1.75, seed: int = 26,
                  eq13_average: Callable[[np.ndarray], float] = np.mean, eq14_product_term: float = 1.0,
                  eq16_band: float = 0.5, eq17_rate: float = 1.0, eq18_support_tol: float | None = None,
                  ) -> CheckRecord:
    """(13) against autograd; the covariance identity behind (14); the softmax ratio bounds (16); the
    lower bound (17) with the book's ``c_+, c_-, c_2``; ``c_+ > 0`` (18); and Lemma 20:
    ``<-grad L(W), V> > 0`` for ``rho >= R_delta`` (log domain), on sampled and adversarial cone pairs.

    Lemma 20 itself is asserted first (the record of this check); the sub-equations are its parts,
    each with the knob its negative control turns: ``eq13_average`` (the ``1/n`` mean of (13)),
    ``eq14_product_term`` (the product of means in the covariance identity), ``eq16_band`` (the
    half-width ``delta/2`` of the support-token band of (16); ``0`` claims the ratios equal
    ``e^{-rho}``), ``eq17_rate`` (multiplies the exponent ``(1 + delta/2) rho`` of the scaling in (17);
    ``1/2`` is the wrong power ``(s_t/s_alpha)^{1/2}``) and ``eq18_support_tol`` (the relative tolerance
    on the primal slack that defines the support tokens behind ``c_+``; ``None`` keeps the instance's
    sets)."""
    rng = np.random.default_rng(seed)
    e13, e14, r16, b17, pos, thresholds, consts_all, c18 = [], [], ([], []), ([], []), [], {}, {}, {}
    for s in range(seed, seed + pick(2, 6)):
        inst = cone_instance(s, p, alpha_rule)
        X, z, Y, v = inst.X, inst.z, inst.Y, inst.v
        consts = lemma20_constants(inst)
        consts_all[f"seed={s}"] = consts
        Rd = consts["R_delta_rho"] if math.isfinite(consts["R_delta_rho"]) else 60.0
        pairs = cone_search.cone_pairs(inst, rng, pick(4, 30))
        # (13) and the covariance identity at moderate norm, against autograd
        for Wh, Vb in pairs[:12]:
            W = 2.0 * inst.norm_mm * Wh
            g = grad_autograd(W, X, z, Y, v, "logistic")
            ref = float(np.sum(g * Vb))
            h, a = mj.logits(X, z, W), mj.logits(X, z, Vb)
            c, sm, u = mj.softmax_jacobian_times(h, inst.gamma)
            f13 = float(eq13_average(mj.loss_derivative(u) * np.sum(c * a, axis=1)))
            e13.append(abs(f13 - ref) / max(abs(ref), 1e-300))
            corr, sh = scaled_correlation(inst, W, Vb, product_term=eq14_product_term)
            e14.append(abs(-corr * math.exp(-sh) - ref) / max(abs(ref), 1e-300))
        emp = 0.0
        for Wh, Vb in pairs:
            # (16): log softmax ratios at rho in a grid
            Wbar = inst.norm_mm * Wh
            sl = mj.logits(X, z, Wbar)
            ar = np.arange(X.shape[0])
            gap = sl[ar, inst.alpha][:, None] - sl
            d_ = inst.delta
            for rho in (1.0, 10.0, 100.0):
                r16[0].extend(rho * (1 - eq16_band * d_) * np.ones(int(inst.support.sum())))
                r16[1].extend(rho * gap[inst.support])
                r16[0].extend(rho * gap[inst.support])
                r16[1].extend(rho * (1 + eq16_band * d_) * np.ones(int(inst.support.sum())))
                r16[0].extend(rho * (1 + 1.5 * d_) * np.ones(int(inst.nonsupport.sum())))
                r16[1].extend(rho * gap[inst.nonsupport])
            for rho in (0.5, 2.0, 8.0, 32.0, 128.0, Rd, 2 * Rd, 4 * Rd):
                W = rho * Wbar
                if d_ * rho < 600:   # (17) scaled by e^{(1+delta/2) rho} stays finite
                    corr, sh = scaled_correlation(inst, W, Vb, shift=eq17_rate * (1 + d_ / 2) * rho)
                    b17[0].append(lemma17_bound(inst, rho, consts))
                    b17[1].append(corr)
                if rho >= Rd:
                    pos.append(scaled_correlation(inst, W, Vb)[0])
            for rho in (0.25, 0.5, 1, 2, 4, 8, 16, 32):
                corr, _ = scaled_correlation(inst, rho * Wbar, Vb)
                if corr <= 0:
                    emp = max(emp, rho)
        thresholds[f"seed={s}"] = {"R_delta_rho": consts["R_delta_rho"], "empirical_threshold_rho_below": emp}
        if eq18_support_tol is not None:   # c_+ from support sets defined by |slack - 1| <= tol (relative)
            ar = np.arange(X.shape[0])
            sl = mj.logits(X, z, inst.Wmm)
            slack = sl[ar, inst.alpha][:, None] - sl
            sup = (np.abs(slack - 1.0) <= eq18_support_tol)
            sup[ar, inst.alpha] = False
            c18[f"seed={s}"] = lemma20_constants(dataclasses.replace(inst, support=sup))["c_plus"]
        else:
            c18[f"seed={s}"] = consts["c_plus"]
    # adversarial (L-BFGS with central differences and Nelder-Mead), on data sets (n, T, d) = (1, 2, 2)
    # and (2, 3, 2) (two more at full scale): What, V/||W^mm|| cone points of x = (U, s, U', s', r),
    # rho = R_delta (1 + e^r) for the lemma and rho = 0.5 + (4 R_delta - 0.5) sigmoid(r) for (17);
    # the cone point of (U, s) alone for (16) (its ratios do not depend on rho)
    insts = (search_instances(seed, (p,), pick(CONE_SHAPES, CONE_SHAPES_FULL), alpha_rule)
             or {(p, inst.X.shape): inst})
    kon = {k: lemma20_constants(v) for k, v in insts.items()}
    Rds = {k: c["R_delta_rho"] if math.isfinite(c["R_delta_rho"]) else 60.0 for k, c in kon.items()}
    lemma = functools.partial(cone_search.lemma20_value, insts=insts, radii=Rds)
    ratios16 = functools.partial(cone_search.eq16_ratio, insts=insts, band=eq16_band)
    ratio17 = functools.partial(cone_search.eq17_ratio, insts=insts, radii=Rds, constants=kon, rate=eq17_rate)

    budget = {"restarts": pick(1, 4), "steps": pick(4, 25), "seed": seed}
    res = maximize_over_sizes(numpy_objective(lemma), cone_init(2, 1), list(insts), **budget)
    res16 = maximize_over_sizes(numpy_objective(ratios16), cone_init(1, 0), list(insts), **budget)
    res17 = maximize_over_sizes(numpy_objective(ratio17), cone_init(2, 1), list(insts), **budget)
    pos.extend(-v for v in res.per_size.values() if math.isfinite(v))
    r16[0].extend(res16.per_size.values())
    r16[1].extend(np.ones(len(res16.per_size)))
    b17[0].extend(v for v in res17.per_size.values() if math.isfinite(v))
    b17[1].extend(1.0 for v in res17.per_size.values() if math.isfinite(v))
    data20 = (f"E1 data sets {seed_range(seed, pick(2, 6))} (6, 8, 10), p = {p}, alpha {alpha_rule}: cone "
              "pairs (What, V) (random and adversarial-direction cone points; V = W^mm, ||W^mm|| What or "
              "another cone point)")
    adv20 = (f"adversarial L-BFGS + Nelder-Mead over cone pairs on data sets "
             f"{', '.join(str(k[1]) for k in insts)}")
    rec = check_bound(np.full(len(pos), 1e-300), pos,
                      "<-grad L(W), V> > 0 for rho >= R_delta (scaled by e^{(1+delta/2)rho}; the "
                      "adversarial instances normalised)",
                      seed=seed, params={"p": p, "alpha_rule": alpha_rule},
                      extra={"thresholds": thresholds, "constants": consts_all}, search=res,
                      families=[data20 + ", rho in {R_delta, 2 R_delta, 4 R_delta} (units of ||W^mm||)",
                                adv20 + ", rho = R_delta (1 + e^r)"])
    check_identity(e13, np.zeros(len(e13)),
                   "(13): <grad L(W), V> = mean l'_i gamma_i^T S'(h_i) X_i V z_i vs autograd",
                   atol=1e-10, claim_id="julistiono-eq-13", check="correlation-formula", seed=seed)
    check_identity(e14, np.zeros(len(e14)),
                   "covariance identity (TF-as-SVM Lemma 7) in log-domain form vs autograd",
                   atol=1e-9, claim_id="julistiono-eq-14", check="covariance-identity", seed=seed)
    check_bound(r16[0], r16[1], "(16): log softmax ratios within [-(1+delta/2)rho, -(1-delta/2)rho] "
                "(support) and <= -(1+3delta/2)rho (non-support)", rtol=1e-9, atol=1e-9,
                claim_id="julistiono-eq-16", check="softmax-ratios", seed=seed, search=res16,
                families=[data20 + ", rho in {1, 10, 100}", adv20 + " (the ratios do not depend on rho)"])
    check_bound(b17[0], b17[1], "(17): correlation * e^{(1+delta/2)rho} >= [c_+ - c_- e^{-delta rho} - "
                "c_2 e^{-(1-3delta/2)rho}]/n", rtol=1e-9, atol=1e-300,
                claim_id="julistiono-eq-17", check="combined-lower-bound", seed=seed, search=res17,
                families=[data20 + ", rho in {0.5, 2, 8, 32, 128, R_delta, 2 R_delta, 4 R_delta} with "
                          "delta rho < 600", adv20 + ", rho in [0.5, 4 R_delta]"])
    check_bound([1e-300] * len(c18), list(c18.values()),
                "(18): c_+ > 0 (some sample has a support token)", claim_id="julistiono-eq-18",
                check="c-plus-positive", seed=seed, params={"support_tol": eq18_support_tol},
                families=[f"c_+ of E1 data sets {seed_range(seed, pick(2, 6))} (6, 8, 10), p = {p}, "
                          f"alpha {alpha_rule}"],
                no_search="c_+ is one number per data set (a sum over the support tokens of its "
                          "l_p-AttSVM solution), positive as soon as one sample has a support token: a "
                          "property of each finite instance, with no continuous variable to search")
    return rec


_L21_PARTS = (("julistiono-eq-19", "rescaled-inequality"), ("julistiono-eq-20", "per-sample-decomposition"),
              ("julistiono-eq-21", "lower-bound"))


@claim_check("julistiono-lemma-21", "svm-direction-beats-current", parts=_L21_PARTS)
def check_lemma21(*, alpha_rule: str = "global", eps_list: tuple[float, ...] = (0.5, 0.2, 0.1),
                  p: float = 1.75, seed: int = 27, eq19_eps_sign: float = 1.0,
                  eq20_product_term: float = 1.0, eq21_rate: float = 1.0) -> CheckRecord:
    """``<-grad L(W), W^mm/||W^mm||> >= (1 - eps) <-grad L(W), W/||W||>`` along rays ``W = rho Wbar``
    (``Wbar`` sampled/adversarial in the cone) for ``rho >= R_eps`` (book's explicit value), in the
    log domain; (19)-(21) are the proof's rescaling and reductions, checked as the same inequality
    per sample at ``rho >= R_eps``.

    Lemma 21 (the ratio form, two separately computed correlations) is asserted first and is the
    record of this check; the parts have their own knobs: ``eq19_eps_sign`` (``W^mm - (1 - s eps)
    Wbar`` as one direction, ``s = 1``; ``-1`` is the ``(1 + eps)`` form), ``eq20_product_term`` (the
    product of means in the per-sample covariance) and ``eq21_rate`` (the correlation of (21) is
    scaled by ``e^{eq21_rate rho}``; ``1/2`` is a wrong power of the softmax ratios)."""
    rng = np.random.default_rng(seed)
    diff, e20, b21, info, lhs21, rhs21 = [], [], ([], []), {}, [], []
    for s in range(seed, seed + pick(2, 6)):
        inst = cone_instance(s, p, alpha_rule)
        X, z, Y, v = inst.X, inst.z, inst.Y, inst.v
        pts = cone_samples(inst, inst.mu0, rng, pick(4, 30), n_adversarial=pick(8, 60))
        for eps in eps_list:
            R = lemma21_R_eps(inst, eps)
            if not math.isfinite(R):
                R = 60.0
            info[f"seed={s},eps={eps}"] = R
            for j, Wh in enumerate(pts):
                Wbar = inst.norm_mm * Wh
                if j < 4:   # (20): the per-sample decomposition, against autograd at moderate norm
                    W = 2.0 * Wbar
                    g = grad_autograd(W, X, z, Y, v, "logistic")
                    ref = float(np.sum(-g * (inst.Wmm - (1 - eps) * Wbar)))
                    c, _ = scaled_correlation(inst, W, inst.Wmm - (1 - eps) * Wbar, shift=0.0,
                                              product_term=eq20_product_term)
                    e20.append(abs(c - ref) / max(abs(ref), 1e-300))
                for rho in (R, 2 * R):
                    W = rho * Wbar
                    a, sh = scaled_correlation(inst, W, inst.Wmm)
                    b, _ = scaled_correlation(inst, W, Wbar, shift=sh)
                    c19, _ = scaled_correlation(inst, W, inst.Wmm - (1 - eq19_eps_sign * eps) * Wbar,
                                                shift=sh)
                    diff.append(c19 / max(abs(a), abs(b), 1e-300))
                    lhs21.append((1 - eps) * b)
                    rhs21.append(a)
                    if alpha_rule == "global":
                        c, _ = scaled_correlation(inst, W, inst.Wmm - (1 - eps) * Wbar,
                                                  shift=eq21_rate * rho)
                        b21[0].append(lemma21_lower_bound(inst, eps, rho))
                        b21[1].append(c)
    # adversarial (L-BFGS with central differences and Nelder-Mead), on data sets (n, T, d) = (1, 2, 2)
    # and (2, 3, 2) (two more at full scale): What the cone point of x = (U, s, e, r), eps between
    # min and max of eps_list (sigmoid(e)) and rho = R_eps (1 + e^r), the three statements below
    insts = (search_instances(seed, (p,), pick(CONE_SHAPES, CONE_SHAPES_FULL), alpha_rule)
             or {(p, inst.X.shape): inst})
    e_range = (min(eps_list), max(eps_list))
    lemma = functools.partial(cone_search.lemma21_ratio, insts=insts, eps_range=e_range)
    rescaled = functools.partial(cone_search.eq19_value, insts=insts, eps_range=e_range,
                                 eps_sign=eq19_eps_sign)
    lower = functools.partial(cone_search.eq21_ratio, insts=insts, eps_range=e_range, rate=eq21_rate)

    budget = {"restarts": pick(1, 4), "steps": pick(4, 25), "seed": seed}
    res = maximize_over_sizes(numpy_objective(lemma), cone_init(1, 2), list(insts), **budget)
    res19 = maximize_over_sizes(numpy_objective(rescaled), cone_init(1, 2), list(insts), **budget)
    lhs21.extend(v for v in res.per_size.values() if math.isfinite(v))
    rhs21.extend(1.0 for v in res.per_size.values() if math.isfinite(v))
    diff.extend(-v for v in res19.per_size.values() if math.isfinite(v))
    fam21 = ["cone samples (random and adversarial-direction) on E1 data sets "
             f"{seed_range(seed, pick(2, 6))} (6, 8, 10), p = {p}, alpha {alpha_rule}, eps in "
             f"{tuple(eps_list)}, rho in {{R_eps, 2 R_eps}}",
             "adversarial L-BFGS + Nelder-Mead over (cone point, eps, rho >= R_eps) on data sets "
             f"{', '.join(str(k[1]) for k in insts)}"]
    rec = check_bound(lhs21, rhs21, "Lemma 21 at rho >= R_eps: (1-eps)<-grad L, What> <= <-grad L, "
                      "What^mm> (both scaled by the same e^shift)", rtol=1e-9, atol=1e-300, seed=seed,
                      params={"eps": list(eps_list), "alpha_rule": alpha_rule},
                      extra={"R_eps_rho": info, "min_normalised_difference": float(np.min(diff))},
                      search=res, families=fam21)
    check_bound(np.zeros(len(diff)), diff, "(19): the rescaled inequality <-grad L, W^mm - (1-eps) Wbar> "
                ">= 0 (normalised)", rtol=0.0, atol=1e-12, claim_id="julistiono-eq-19",
                check="rescaled-inequality", seed=seed, search=res19, families=fam21)
    check_identity(e20, np.zeros(len(e20)), "(20): per-sample covariance decomposition of "
                   "<-grad L, W^mm - (1-eps) Wbar> vs autograd", atol=1e-9,
                   claim_id="julistiono-eq-20", check="per-sample-decomposition", seed=seed)
    if b21[0]:
        res21 = maximize_over_sizes(numpy_objective(lower), cone_init(1, 2), list(insts), **budget)
        b21[0].extend(v for v in res21.per_size.values() if math.isfinite(v))
        b21[1].extend(1.0 for v in res21.per_size.values() if math.isfinite(v))
        check_bound(b21[0], b21[1], "(21): e^rho <-grad L, W^mm - (1-eps) Wbar> >= book's lower bound",
                    rtol=1e-9, atol=1e-300, claim_id="julistiono-eq-21", check="lower-bound", seed=seed,
                    search=res21, families=fam21)
    return rec
