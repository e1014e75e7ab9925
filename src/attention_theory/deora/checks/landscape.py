"""Checks of Deora et al.'s loss-landscape properties (Chapter 3 of the book): Lemma 6,
Corollary 1, Eqs. (14)-(16) and Proposition 4 (GLQC).

Called by ``book/deora/landscape.md``.  Every registered check takes the statement's constant or
formula as keyword arguments with the paper's value as default; ``tests/deora/test_nc_landscape.py``
passes a wrong one, which must raise :class:`~attention_theory.verify.ClaimViolation`.

The risks, norms and random heads the checks evaluate live in :mod:`attention_theory.deora.landscape`,
their instances, searches and limit families in :mod:`attention_theory.deora.landscape_search`.
Sizes follow ``ATTN_SCALE``.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import scipy.optimize as so
import torch

from attention_theory.config import pick
from attention_theory.deora import bounds as bd
from attention_theory.deora import model as md
from attention_theory.deora.calculus import maximize_each
from attention_theory.deora.landscape import (
    glqc_1d_ratio,
    heads_grid,
    identical_heads_grid,
    identical_heads_weak_convexity,
    loss_and_grad,
    loss_hessian_decomposition,
    max_U_norm,
    norm_2inf,
    random_heads,
    risk_batch,
    risk_fn,
    segment_max,
    weak_convexity_vs_heads,
)
from attention_theory.deora.landscape_search import (
    GD_SEGMENTS_FAMILY,
    PAIRS_FAMILY,
    SEARCHED_PAIRS_FAMILY,
    bottom_eigvec,
    eq15_ratio,
    eq16_ratio,
    head_scaling,
    landscape_point,
    landscape_quantities,
    lemma6_rhs,
    ratio_items,
    search_data,
    searched_points,
    segment_lam_min,
    segment_search,
    segment_sizes,
    segments,
    taylor_instances,
    taylor_search,
    tight_families,
)
from attention_theory.foundations import hessian as hs
from attention_theory.foundations.tensors import f64
from attention_theory.search import numpy_objective
from attention_theory.verify import (
    CheckRecord,
    bound_outcome,
    check_bound,
    check_identity,
    check_interval,
    claim_check,
    confirm_erratum,
    limit_sequence,
)

__all__ = ['check_cor1_bounds', 'check_cor1_h_scaling', 'check_cor1_large_h', 'check_cor1_segment_max',
           'check_eq14', 'check_eq14_review', 'check_eq15', 'check_eq16', 'check_lemma6_bounds',
           'check_lemma6_decomposition', 'check_prop4', 'check_prop4_1d']


def _sizes() -> list[tuple[int, int]]:
    return pick([(2, 2), (3, 2)], [(2, 1), (2, 2), (3, 2), (4, 3), (5, 5)])


@claim_check("deora-lemma-6", "decomposition-65")
def check_lemma6_decomposition(*, terms: tuple[bool, bool] = (True, True), curvature_sign: float = 1.0,
                               seed: int = 100) -> CheckRecord:
    """Eq. (65) against ``torch.func.hessian`` of the empirical risk (relative error ``<= 1e-10``)."""
    rng = np.random.default_rng(seed)
    comp, ref = [], []
    for H in (1, 2, 3):
        for (T, d) in _sizes():
            Xs, ys = md.sample_bounded_tokens(4, T, d, 1.0, seed=int(rng.integers(1 << 30)))
            th = random_heads(rng, H, T, d, u_scale=3.0, w_scale=3.0)
            A = loss_hessian_decomposition(th, Xs, ys, H, terms=terms, curvature_sign=curvature_sign)
            Bm = hs.exact_hessian(risk_fn(Xs, ys, H), th)
            s = max(float(Bm.abs().max()), 1e-300)
            comp += (A / s).reshape(-1).tolist()
            ref += (Bm / s).reshape(-1).tolist()
    return check_identity(comp, ref, "loss Hessian = Gauss-Newton term + curvature term (65)",
                          atol=1e-10, seed=seed)


def _landscape_check(b_of: str, scales: dict[str, float], seed: int, label: str) -> CheckRecord:
    """Shared harness of Lemma 6 (``b_of="mU"``) and Corollary 1 (``b_of="2inf"``): random heads,
    the adversarial search and the families of :func:`tight_families`, whose sequences become the
    record's ``limits`` (only for an item whose right side is the paper's, ``scales[k] = 1``)."""
    rng = np.random.default_rng(seed)
    lhs, rhs, tags = [], [], []

    def add(th, Xs, ys, H, T, d, Rr, tag) -> list[float]:
        q = landscape_quantities(th, Xs, ys, H)
        b = max_U_norm(th, H, T, d) if b_of == "mU" else norm_2inf(th, H, T, d)
        l_, r_ = ratio_items(q, lemma6_rhs(b, T, d, Rr, H, q["L"], scales))
        lhs.extend(l_); rhs.extend(r_); tags.extend([f"{tag} item{k}" for k in "123"])
        return [l / r if r > 0 else (math.inf if l > 0 else 0.0) for l, r in zip(l_, r_)]

    Rs, ns = pick([0.1, 1.0], [0.01, 0.1, 1.0, 2.0]), pick((1, 8), (1, 8, 32))
    for (T, d) in _sizes():
        for Rr in Rs:
            for H in (1, 2, 4):
                for n in ns:
                    for us, ws in ((0.3, 1.0), (3.0, 3.0), (10.0, 30.0)):
                        Xs, ys = md.sample_bounded_tokens(n, T, d, Rr, seed=int(rng.integers(1 << 30)))
                        th = random_heads(rng, H, T, d, u_scale=us, w_scale=ws) * head_scaling(H, T, d, Rr)
                        add(th, Xs, ys, H, T, d, Rr, f"random T={T} d={d} R={Rr} H={H} n={n}")
    # adversarial points, searched against this check's bounds, evaluated under its right-hand
    # sides (scaled by ``scales``) with exact Hessians
    res, points = searched_points(b_of, seed)
    adv_R = {}
    for size, (_, z) in points.items():
        item, T, d, n, H = size
        Xs, th, R = (v.detach() for v in landscape_point(size, z))
        ys = np.array([(-1.0) ** i for i in range(n)])
        tag = f"adversarial({item}, T={T}, d={d}, n={n}, H={H})"
        adv_R[tag] = float(R)
        add(th, Xs.numpy(), ys, H, T, d, float(R), tag)
    per_item_found = {k: float(max(lhs[i] / rhs[i] if rhs[i] > 0 else math.inf
                                   for i, t in enumerate(tags) if t.endswith(f"item{k}"))) for k in "123"}
    # the families where each bound is (or, item 3, is not) tight; see tight_families
    limits, curves, fams = [], {}, []
    for fam in tight_families():
        k = fam["item"]
        ratios = [add(*inst, f"{fam['key']} {v:g}")[int(k) - 1]
                  for v, inst in zip(fam["values"], fam["instances"])]
        curves[fam["key"]] = {f"{v:g}": r for v, r in zip(fam["values"], ratios)}
        fams.append(f"{fam['family']}; {fam['parameter']} over {', '.join(f'{v:g}' for v in fam['values'])}")
        if fam["limit"] and scales.get(k, 1.0) == 1.0:
            limits.append(limit_sequence(fam["family"], fam["parameter"], fam["values"], ratios,
                                         supremum=fam["supremum"]))
    lhs_a, rhs_a = np.array(lhs), np.array(rhs)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(rhs_a > 0, lhs_a / rhs_a, np.where(lhs_a > 0, np.inf, 0.0))
    per_item = {k: float(max(r for r, t in zip(ratio, tags) if t.endswith(f"item{k}"))) for k in "123"}
    adv = {t: float(r) for r, t in zip(ratio, tags) if t.startswith("adversarial")}
    sizes = _sizes()
    families = [f"F-rand: random heads (u_scale, w_scale) in {{(0.3, 1), (3, 3), (10, 30)}} rescaled to U/R, "
                "W/R^2, "
                f"(T, d) in {{{', '.join(map(str, sizes))}}}, R in {{{', '.join(f'{r:g}' for r in Rs)}}}, "
                f"H in {{1, 2, 4}}, n in {{{', '.join(map(str, ns))}}}",
                "adversarial L-BFGS + Nelder-Mead per item over tokens, heads and R in [1e-3, 10^0.5] (heads "
                "rescaled U'/R, W'/R^2), sizes (item, T, d, n, H) from ('1', 1, 1, 1, 1)",
                *fams]
    return check_bound(lhs, rhs, label, seed=seed, search=res, families=families, limits=limits or None,
                       extra={"worst_ratio_per_item": per_item,
                              "worst_ratio_per_item_random_and_searched": per_item_found,
                              "adversarial_ratios": adv, "adversarial_R": adv_R, "tight_families": curves})


@claim_check("deora-lemma-6", "random-and-adversarial")
def check_lemma6_bounds(*, scales: dict[str, float] | None = None, seed: int = 101) -> CheckRecord:
    """Lemma 6 items 1-3 with ``m_U = max_h ||U_h||_F`` on ``F-rand`` (``R`` from small to 1 or 2,
    ``H in {1,2,4}``, ``n in {1,8}``, small to saturated parameters), under adversarial search over
    tokens, parameters and ``R`` (sizes ``(T, d, n, H)`` from ``(1, 1, 1, 1)``, L-BFGS and Nelder-Mead),
    and on the families of :func:`tight_families`: items 1 and 2 reach their supremum 1 in the
    limit ``R -> 0``, item 3 its supremum 1/2 (the record's ``limits``).  ``scales`` multiplies
    each item's right side."""
    return _landscape_check("mU", scales or {}, seed, "Lemma 6 items 1-3 (m_U), random and adversarial")


@claim_check("deora-cor-1", "random-and-adversarial")
def check_cor1_bounds(*, scales: dict[str, float] | None = None, seed: int = 102) -> CheckRecord:
    """Corollary 1 (beta_1, beta_2, kappa = beta_3/sqrt(H) at ``||theta||_{2,inf}``), same harness
    and families (on which ``||theta||_{2,inf} = m_U``: the same limits)."""
    return _landscape_check("2inf", scales or {}, seed,
                            "Corollary 1 (beta1, beta2, beta3) at ||theta||_{2,inf}, random and adversarial")


@claim_check("deora-cor-1", "segment-maximum")
def check_cor1_segment_max(*, norm: Callable[[torch.Tensor, int, int, int], float] | None = None,
                           seed: int = 103) -> CheckRecord:
    """``max_{[theta_1, theta_2]} beta_j = beta_j(theta_1) v beta_j(theta_2)``: each beta_j is
    non-decreasing in the convex function ``||.||_{2,inf}``.  ``norm`` replaces the norm
    (a non-convex replacement is the negative control).  Random segments (``T = d = 2``,
    ``H <= 5``) and segments searched adversarially (sizes ``(H, T, d)`` from ``(1, 1, 1)``,
    L-BFGS with finite-difference gradients and Nelder-Mead: ``norm`` may be any float function)."""
    nf = norm or norm_2inf
    rng = np.random.default_rng(seed)
    R = 1.0
    lhs, rhs = [], []

    def sides(a, b, H: int, T: int, d: int, grid: int = 51) -> tuple[float, float]:
        vals = [bd.beta3(nf(al * a + (1 - al) * b, H, T, d), T, d, R) for al in np.linspace(0, 1, grid)]
        return max(vals), max(vals[0], vals[-1])

    for _ in range(pick(300, 1000)):
        H = int(rng.integers(1, 6))
        a = random_heads(rng, H, 2, 2, u_scale=2.0, w_scale=2.0)
        b = random_heads(rng, H, 2, 2, u_scale=2.0, w_scale=2.0)
        l_, r_ = sides(a, b, H, 2, 2)
        lhs.append(l_)
        rhs.append(r_)

    def ratio(size: tuple[int, int, int], z: np.ndarray) -> float:
        H, T, d = size
        p = H * md.head_size(T, d)
        l_, r_ = sides(f64(z[:p]), f64(z[p:]), H, T, d, grid=11)   # found segments: re-checked on 51 points
        return l_ / r_

    sizes = pick([(1, 1, 1), (2, 1, 1), (1, 2, 1)],
                 [(1, 1, 1), (2, 1, 1), (1, 2, 1), (1, 2, 2), (2, 2, 2), (4, 2, 2)])
    res, points = maximize_each(numpy_objective(ratio),
                                lambda size, g: g.standard_normal(2 * size[0] * md.head_size(*size[1:])) * 2,
                                sizes, restarts=pick(2, 4), steps=pick(3, 30), seed=seed)
    for (H, T, d), (_, z) in points.items():
        p = H * md.head_size(T, d)
        l_, r_ = sides(f64(z[:p]), f64(z[p:]), H, T, d)
        lhs.append(l_)
        rhs.append(r_)
    return check_bound(lhs, rhs, "beta_3 on a segment is maximal at an endpoint", atol=1e-12,
                       seed=seed, search=res,
                       families=[f"{pick(300, 1000)} random segments between IID heads (u_scale = w_scale = "
                                 "2), T = d = 2, H in 1..5, R = 1, 51 points each",
                                 "adversarial segments, L-BFGS (finite differences) + Nelder-Mead on 11 "
                                 "points, re-checked on 51, sizes (H, T, d) from (1, 1, 1)"])


@claim_check("deora-cor-1", "weak-convexity-large-h", parts=("lanczos-vs-exact",))
def check_cor1_large_h(*, kappa_of_H: Callable[[int], float] = lambda H: H ** -0.5,
                       lanczos_which: str = "SA", seed: int = 104, heads: tuple[int, ...] | None = None,
                       identical_search: tuple[int, int] | None = None) -> CheckRecord:
    """Corollary 1 (3), ``-lambda_min <= beta_3(theta) kappa_of_H(H) L``, for ``H`` up to 256
    (smoke) or 4096 (full) on two families: IID random heads, and ``H`` identical copies of an
    adversarial head (searched over sizes with L-BFGS and Nelder-Mead), whose ratio against the
    ``1/sqrt(H)`` bound stays of order one, so a ``1/H`` decay is exceeded at large ``H``.  Exact
    Hessians up to 160 parameters, HVP + Lanczos above; Lanczos (eigenvalue ``lanczos_which``,
    ``"SA"`` = smallest) is validated against the exact value wherever both are computed
    (part ``lanczos-vs-exact``).

    ``heads`` (the head counts of both families) and ``identical_search`` (``(restarts, steps)`` of
    the identical-head search) default to the scale's grids (:func:`heads_grid`,
    :func:`identical_heads_grid`) and budget; smaller values are for the negative controls, which
    need only the smallest instances that fail."""
    restarts, steps = identical_search if identical_search is not None else (pick(3, 8), pick(60, 200))
    data = weak_convexity_vs_heads(heads if heads is not None else heads_grid(), 3, 2, 8, 2.0, 3.0, seed)
    T, d = data["T"][0], data["d"][0]
    idn = identical_heads_weak_convexity(heads if heads is not None else identical_heads_grid(),
                                         restarts=restarts, steps=steps)
    Ti, di = idn["T"], idn["d"]
    pairs = [(e, l) for e, l in zip(data["lam"], data["lanczos"]) if l is not None]
    y1 = torch.ones(1, dtype=torch.float64)
    for H, lam, meth in zip(idn["H"], idn["lam"], idn["method"]):
        if meth == "exact" and H * md.head_size(Ti, di) >= 30:
            lz = hs.lanczos_extreme(risk_fn(idn["X"], y1, H), idn["head"].repeat(H), which=lanczos_which,
                                    seed=seed, ncv=100)
            pairs.append((lam, lz))
    check_identity([l for _, l in pairs], [e for e, _ in pairs],
                   "Lanczos lambda_min equals the exact lambda_min", atol=1e-9, rtol=1e-8,
                   seed=seed, check="lanczos-vs-exact")
    lhs = [max(0.0, -lam) for lam in data["lam"]] + [max(0.0, -lam) for lam in idn["lam"]]
    rhs = ([bd.beta3(b, T, d, 1.0) * kappa_of_H(H) * L for H, b, L in zip(data["H"], data["b"], data["L"])]
           + [bd.beta3(b, Ti, di, 1.0) * kappa_of_H(H) * L for H, b, L in zip(idn["H"], idn["b"], idn["L"])])
    n_iid = len(data["H"])
    ratio = [l / r for l, r in zip(lhs, rhs)]
    grid = lambda Hs: f"H in {{{', '.join(map(str, Hs))}}}"  # noqa: E731
    return check_bound(lhs, rhs, "self-bounded weak convexity lambda_min >= -beta3/sqrt(H) L at large H "
                       "(IID heads and identical adversarial heads)", search=idn["search_result"],
                       seed=seed, params={"H": list(data["H"]), "T": T, "d": d,
                                          "identical_heads": {"H": list(idn["H"]), "T": Ti, "d": di}},
                       families=[f"IID random heads with ||U_h||_F = 2, ||W_h||_F = 3 on fixed data "
                                 f"(n = 8, T = {T}, d = {d}, R = 1), {grid(data['H'])}",
                                 f"H identical copies of one head searched with its sample (L-BFGS + "
                                 f"Nelder-Mead, {restarts} restarts x {steps} steps, sizes (T, d) in "
                                 f"{{(2, 1), (2, 2)}}, R = 1, label +1), {grid(idn['H'])}"],
                       extra={"lambda_min": data["lam"], "loss": data["L"], "method": data["method"],
                              "ratio": ratio[:n_iid], "ratio_identical_heads": ratio[n_iid:],
                              "identical_heads_lambda_min": idn["lam"], "identical_heads_loss": idn["L"]})


@claim_check("deora-cor-1", "h-scaling")
def check_cor1_h_scaling(*, low: float = -1.0, high: float = -0.1, h_min: int = 16,
                         seed: int = 104) -> CheckRecord:
    """"As H grows the minimum eigenvalue becomes less negative" (the sentence after Corollary 1):
    the exponent of ``-lambda_min / L`` in ``H`` (IID heads of fixed norms, ``H >= h_min``) has its
    whole 95% interval in ``[low, high]``, i.e. the ratio decreases beyond doubt (``high < 0``).

    The exponent is not pinned to the bound's ``-1/2``: on IID heads it is shallower in this
    range (the most negative of ``H`` head blocks still grows); the power of ``H`` is checked
    by :func:`check_cor1_large_h` on identical searched heads."""
    from attention_theory.foundations.trend import power_exponent

    data = weak_convexity_vs_heads(heads_grid(), 3, 2, 8, 2.0, 3.0, seed)
    H = np.array(data["H"], dtype=float)
    y = -np.array(data["lam"]) / np.array(data["L"])
    keep = (H >= h_min) & (y > 0)
    est = power_exponent(H[keep], y[keep])
    return check_interval(est.exponent, low, high,
                          "exponent of -lambda_min/L in H, 95% interval (decreasing beyond doubt)", seed=seed,
                          n_instances=int(keep.sum()), value_interval=(est.low, est.high),
                          params={"h_min": h_min, "H": [int(h) for h in H[keep]]},
                          extra={"slope": est.exponent, "exponent": est.to_dict()})


@claim_check("deora-eq-14", "taylor-lower-bound", parts=("integral-remainder",))
def check_eq14(*, direction: str = "ge", kernel: Callable[[float], float] = lambda s: 1.0 - s,
               seed: int = 110) -> CheckRecord:
    """Eq. (14): ``L(theta) >= L(theta_k) + <grad L(theta_k), theta - theta_k>
    + 1/2 min_alpha lambda_min(Hess L(theta_k alpha)) ||theta - theta_k||^2``.

    First the exact integral form of the remainder (Gauss-Legendre, 20 nodes, HVPs) is
    verified, then the inequality in ``direction`` (``"ge"`` printed in [T]; ``"le"`` the
    review copy's) with the minimum over a grid refined by a bounded scalar search, on random,
    negative-curvature and adversarial pairs (sizes ``(H, T, d, n)`` from ``(1, 2, 1, 1)``, L-BFGS and
    Nelder-Mead on the ratio of the two sides).  ``kernel(s)`` is the weight of the integral remainder (``1 -
    s``; dropping it is the negative
    control of the part ``integral-remainder``).
    """
    if direction not in ("ge", "le"):
        raise ValueError(f"direction must be 'ge' or 'le', got {direction!r}")
    nodes, weights = np.polynomial.legendre.leggauss(20)
    s_nodes, s_w = (nodes + 1) / 2, weights / 2
    lhs, rhs, integ, rem = [], [], [], []
    res, searched = taylor_search(seed)
    for Xs, ys, H, thk, th, L, taylor in taylor_instances(seed) + searched:
        loss = risk_fn(Xs, ys, H)
        Lk, gk = loss_and_grad(loss, thk)
        delta = th - thk
        rem.append(L - float(Lk) - float(gk @ delta))
        q = sum(w * kernel(s) * float(delta @ hs.hvp_function(loss, thk + s * delta)(delta))
                for s, w in zip(s_nodes, s_w))
        integ.append(q)
        if direction == "ge":
            lhs.append(taylor); rhs.append(L)
        else:
            lhs.append(L); rhs.append(taylor)
    check_identity(integ, rem, "Taylor remainder = int_0^1 (1-s) D^T Hess D ds (Gauss-Legendre)",
                   atol=1e-12, rtol=1e-8, seed=seed, check="integral-remainder")
    # the "ratio" of a lower bound: (Taylor RHS) / L(theta) <= 1
    return check_bound(lhs, rhs, f"second-order Taylor bound, direction {direction}", seed=seed,
                       atol=1e-12, search=res,
                       families=[PAIRS_FAMILY.format(count=pick(8, 60)), SEARCHED_PAIRS_FAMILY])


@claim_check("deora-eq-14", "review-direction")
def check_eq14_review(*, printed: str = "le", seed: int = 110) -> CheckRecord:
    """Erratum of the review copy [R]: Eq. (14) printed with ``<=``; [T] has ``>=``."""
    L_ = [inst[5] for inst in taylor_instances(seed)]
    T_ = [inst[6] for inst in taylor_instances(seed)]
    inst = {"loss": L_, "taylor_rhs": T_}  # one set of (L(theta), Taylor right-hand side) pairs
    as_printed = (bound_outcome(L_, T_, instances=inst) if printed == "le"
                  else bound_outcome(T_, L_, instances=inst))
    corrected = bound_outcome(T_, L_, instances=inst)
    return confirm_erratum(
        as_printed, corrected,
        description="Eq. (14) of the review copy has the inequality reversed",
        printed_text="L(theta) <= L(theta_k) + <grad, theta - theta_k> + 1/2 min lambda_min ||theta - "
                     "theta_k||^2",
        corrected_text="L(theta) >= L(theta_k) + <grad, theta - theta_k> + 1/2 min lambda_min ||theta - "
                       "theta_k||^2 (as in [T])",
        printed_tex=(r"\begin{aligned}\widehat L(\theta)\le{}&\widehat L(\theta_k)"
                     r"+\langle\nabla\widehat L(\theta_k),\theta-\theta_k\rangle\\"
                     r"&+\tfrac12\min_\alpha\lambda_{\min}\bigl(\nabla^2\widehat L(\theta_{k\alpha})\bigr)"
                     r"\|\theta-\theta_k\|^2\end{aligned}"),
        corrected_tex=(r"\begin{aligned}\widehat L(\theta)\ge{}&\widehat L(\theta_k)"
                       r"+\langle\nabla\widehat L(\theta_k),\theta-\theta_k\rangle\\"
                       r"&+\tfrac12\min_\alpha\lambda_{\min}\bigl(\nabla^2\widehat L(\theta_{k\alpha})\bigr)"
                       r"\|\theta-\theta_k\|^2\end{aligned}"),
        source="Deora et al., review version (seed 003), Sec. 6.1 (proof sketch of Theorem 1), Eq. (14)",
        kind="typo", where="proof", version="review-copy", seed=seed)


@claim_check("deora-eq-15", "segment-weak-convexity", parts=("max-form",))
def check_eq15(*, kappa_scale: float = 1.0, max_form_scale: float = 1.0, seed: int = 112) -> CheckRecord:
    """Eq. (15)/(67), pointwise form: for every ``theta`` on ``[theta_1, theta_2]``,
    ``lambda_min(Hess L(theta)) >= -kappa_scale (beta3(theta_1) v beta3(theta_2)) / sqrt(H) L(theta)``
    (51 points per segment, exact Hessians); also the max-form of Eq. (15) (part ``max-form``,
    whose right side ``max_form_scale`` multiplies).  Random, negative-curvature and GD segments,
    and segments searched adversarially on the pointwise ratio (sizes ``(H, T, d, n)`` from
    ``(1, 2, 1, 1)``, L-BFGS and Nelder-Mead; the pointwise ratio bounds the max-form one)."""
    rng = np.random.default_rng(seed)
    R = 1.0
    lhs, rhs, lhs_m, rhs_m = [], [], [], []
    res, searched = segment_search(eq15_ratio, segment_sizes(), seed=seed, restarts=pick(2, 4),
                                    steps=pick(2, 20))
    segs = segments(rng,
                    pick(12, 40)) + [(loss, a, b, H, T, d, "searched")
                                     for loss, a, b, H, T, d, *_ in searched]
    for loss, a, b, H, T, d, _ in segs:
        kb = max(bd.beta3(norm_2inf(a, H, T, d), T, d, R),
                 bd.beta3(norm_2inf(b, H, T, d), T, d, R)) / math.sqrt(H)
        al, lam = segment_lam_min(loss, a, b, 51)
        pts = f64(al).unsqueeze(1) * a + (1 - f64(al).unsqueeze(1)) * b
        with torch.no_grad():
            Lv = torch.stack([loss(p_) for p_ in pts]).numpy()
        lhs += np.maximum(0.0, -lam).tolist()
        rhs += (kappa_scale * kb * Lv).tolist()
        lhs_m.append(max(0.0, -float(lam.min())))
        rhs_m.append(max_form_scale * kb * float(Lv.max()))
    # the search maximizes the pointwise ratio, an upper bound of the max-form ratio
    # (-min lambda / (kappa_bar max L) <= -lambda(a*) / (kappa_bar L(a*)) at the minimizer a*)
    fams = [PAIRS_FAMILY.format(count=pick(12, 40)), GD_SEGMENTS_FAMILY, SEARCHED_PAIRS_FAMILY]
    check_bound(lhs_m, rhs_m, "Eq. (15), max form: min lambda_min >= -kappa_bar max L", seed=seed,
                check="max-form", search=res, families=[f + ", the whole segment" for f in fams])
    return check_bound(lhs, rhs, "Eq. (15)/(67) pointwise on random, negative-curvature, GD and "
                       "searched segments", seed=seed, search=res,
                       families=[f + ", 51 points per segment" for f in fams])


@claim_check("deora-eq-16", "combined-lower-bound")
def check_eq16(*, curvature: float = 1.0, seed: int = 113) -> CheckRecord:
    """Eq. (16): ``L(theta) >= L(theta_k) + <grad L(theta_k), theta - theta_k>
    - 1/2 curvature (beta3(theta) v beta3(theta_k))/sqrt(H) max_alpha L(theta_k alpha) ||theta -
    theta_k||^2``,
    with ``theta`` a later GD iterate, a random target, a negative-curvature target or an adversarial
    pair (sizes ``(H, T, d, n)`` from ``(1, 2, 1, 1)``, L-BFGS and Nelder-Mead on the ratio of the two
    sides).  ``curvature=0`` (convexity) is the negative control."""
    rng = np.random.default_rng(seed)
    R = 1.0
    lhs, rhs, slack_rel = [], [], []
    cases = []
    for loss, a, b, H, T, d, _ in segments(rng, pick(12, 40)):
        cases.append((loss, b, a, H, T, d))          # theta_k = b, theta = a
    res, searched = segment_search(lambda *a: eq16_ratio(*a, curvature=curvature), segment_sizes(),
                                    seed=seed, restarts=pick(2, 4), steps=pick(4, 40))
    cases += [(loss, thk, th, H, T, d) for loss, thk, th, H, T, d, *_ in searched]
    for loss, thk, th, H, T, d in cases:
        Lk, gk = loss_and_grad(loss, thk)
        delta = th - thk
        kb = max(bd.beta3(norm_2inf(th, H, T, d), T, d, R),
                 bd.beta3(norm_2inf(thk, H, T, d), T, d, R)) / math.sqrt(H)
        with torch.no_grad():
            mL, _ = segment_max(lambda al: np.array([float(loss(x * th + (1 - x) * thk)) for x in al]),
                                grid=pick(41, 201))
        curv = 0.5 * kb * mL * float(delta @ delta)
        r = float(Lk) + float(gk @ delta) - curvature * curv
        L = float(loss(th))
        lhs.append(r); rhs.append(L)
        slack_rel.append((L - r) / curv if curv > 0 else math.inf)
    return check_bound(lhs, rhs, "Eq. (16) along GD iterates, targets and searched pairs", seed=seed,
                       atol=1e-12, search=res,
                       families=[PAIRS_FAMILY.format(count=pick(12, 40)), GD_SEGMENTS_FAMILY,
                                 SEARCHED_PAIRS_FAMILY],
                       extra={"min_slack_over_curvature_term": float(np.min(slack_rel))})


def _boundary_length(a: torch.Tensor, v: torch.Tensor, H: int, T: int, d: int, R: float,
                     factor: float = 2.0) -> float:
    """Largest ``s`` with ``factor (beta3(a) v beta3(a + s v)) s^2 <= sqrt(H)`` (bisection;
    ``||v|| = 1``; (18) has ``factor = 2``)."""
    def ok(s: float) -> bool:
        b = max(norm_2inf(a, H, T, d), norm_2inf(a + s * v, H, T, d))
        return factor * bd.beta3(b, T, d, R) * s * s <= math.sqrt(H)
    lo, hi = 0.0, 1.0
    while ok(hi):
        hi *= 2
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo


def _glqc_instance(loss, a, v, H, T, d, R, *, center: bool, factor: float = 2.0) -> tuple[float, float]:
    """Segment of boundary length along ``v`` from ``a`` (or centred at the 1-D maximum of
    the loss along ``v`` near ``a``); returns (max L / (L(theta_1) v L(theta_2)), c)."""
    v = v / torch.linalg.norm(v)
    if center:  # move to the local maximum of t -> L(a + t v), t in [-1, 1]
        with torch.no_grad():
            res = so.minimize_scalar(lambda t: -float(loss(a + t * v)), bounds=(-1, 1), method="bounded")
        a = a + float(res.x) * v
    s = _boundary_length(a, v, H, T, d, R, factor)
    t1, t2 = (a - 0.5 * s * v, a + 0.5 * s * v) if center else (a, a + s * v)
    if center:  # re-pin the length for the shifted endpoints
        s2 = _boundary_length(t1, v, H, T, d, R, factor)
        t2 = t1 + s2 * v
        s = s2
    return _glqc_segment(loss, t1, t2, H, T, d, R)


def _glqc_segment(loss, t1, t2, H, T, d, R) -> tuple[float, float]:
    """``(max_[t1, t2] L / (L(t1) v L(t2)), c = kappa_bar ||t1 - t2||^2)`` (grid plus refinement)."""
    with torch.no_grad():
        m, _ = segment_max(lambda al: np.array([float(loss(x * t1 + (1 - x) * t2)) for x in al]),
                           grid=pick(101, 201))
        end = max(float(loss(t1)), float(loss(t2)))
    kb = max(bd.beta3(norm_2inf(t1, H, T, d), T, d, R),
             bd.beta3(norm_2inf(t2, H, T, d), T, d, R)) / math.sqrt(H)
    return m / end, kb * float(torch.sum((t1 - t2) ** 2))


def _excess_share(r: float, sharp: float) -> float:
    """``(r - 1) / (sharp - 1)``, which is ``<= 1`` iff ``r <= sharp``; a claimed constant ``sharp <= 1``
    (quasi-convexity) gives the plain ratio ``r / sharp``."""
    return (r - 1) / (sharp - 1) if sharp - 1 > 1e-12 else r / sharp


def _glqc_search(constant: float, boundary_factor: float, sharp_constant: Callable[[float], float],
                 seed: int, R: float = 1.0) -> tuple:
    """Adversarial GLQC segments ``[theta_1, theta_1 + s v]`` with ``s`` a fraction of the boundary
    length of (18) (so every segment satisfies it): ``max(r / constant, (r - 1) / (sharp_constant(c) - 1))``,
    with
    ``r`` the ratio of Proposition 4 on 21 points, maximized over ``(theta_1, v, fraction)`` by L-BFGS
    (finite differences) and Nelder-Mead on fixed data per size ``(H, T, d, n)``.  Returns the search
    and ``[(loss, theta_1, theta_2, H, T, d)]``, the best segment of every size."""
    sizes = pick([(1, 1, 1, 1), (1, 2, 1, 1), (1, 2, 1, 4)],
                 [(1, 1, 1, 1), (1, 2, 1, 1), (1, 2, 1, 4), (1, 2, 2, 4), (2, 2, 1, 4)])
    data = {size: search_data(size, seed) for size in sizes}
    al = np.linspace(0.0, 1.0, 21)[:, None]

    def segment(size, z):
        H, T, d, _ = size
        p = H * md.head_size(T, d)
        a, v = z[:p], z[p:2 * p] / max(np.linalg.norm(z[p:2 * p]), 1e-300)
        A, V = a.reshape(H, -1), v.reshape(H, -1)
        nA = np.sqrt((A**2).sum(1)).max()

        def ok(s_: np.ndarray) -> np.ndarray:       # (18) at lengths s_, vectorized
            b = np.maximum(nA, np.sqrt(((A[None] + s_[:, None, None] * V[None]) ** 2).sum(2)).max(1))
            b3 = 2 * math.sqrt(T * d) * R**3 * (3 * math.sqrt(d) * R**2 * b + 1)
            return boundary_factor * b3 * s_**2 <= math.sqrt(H)

        lo, hi = 0.0, 1.0
        while ok(np.array([hi]))[0]:
            hi *= 2
        for _ in range(3):                           # the largest admissible length, to hi / 1000^3
            grid = np.linspace(lo, hi, 1001)
            i = int(np.flatnonzero(ok(grid)).max())
            lo, hi = grid[i], grid[min(i + 1, 1000)]
        s_ = lo / (1.0 + math.exp(-z[2 * p]))
        return a, a + s_ * v

    def ratio(size, z):
        H, T, d, _ = size
        t1, t2 = segment(size, z)
        with torch.no_grad():
            Ls = risk_batch(f64(al * t2 + (1 - al) * t1), *data[size], H).numpy()
        r = Ls.max() / max(Ls[0], Ls[-1])
        kb = max(bd.beta3(norm_2inf(t1, H, T, d), T, d, R),
                 bd.beta3(norm_2inf(t2, H, T, d), T, d, R)) / math.sqrt(H)
        c = kb * float(np.sum((t1 - t2) ** 2))
        # against the sharp constant, the share of the allowed excess (r - 1)/(sharp(c) - 1) (<= 1 iff
        # r <= sharp(c)): the plain ratio would be maximized, with value 1, by any short segment
        return max(r / constant, _excess_share(r, sharp_constant(c)) if c > 1e-8 else 0.0)

    def init(size, g):
        H, T, d, _ = size
        a = random_heads(g, H, T, d, u_scale=float(g.uniform(2, 8)), w_scale=float(g.uniform(1, 10))).numpy()
        return np.concatenate([a, g.standard_normal(a.size), [3.0]])

    res, points = maximize_each(numpy_objective(ratio), init, sizes, restarts=pick(2, 4),
                                steps=pick(3, 30), seed=seed)
    out = []
    for size, (_, z) in points.items():
        H, T, d, _ = size
        t1, t2 = segment(size, z)
        out.append((risk_fn(*data[size], H), f64(t1), f64(t2), H, T, d))
    return res, out


@claim_check("deora-prop-4", "glqc-boundary", parts=("hypothesis-18", "sharp-constant"))
def check_prop4(*, constant: float = 4.0 / 3.0, boundary_factor: float = 2.0,
                sharp_constant: Callable[[float], float] = bd.glqc_sharp_constant,
                seed: int = 120) -> CheckRecord:
    """Proposition 4 at the boundary of (18): ``max_{[theta_1, theta_2]} L <= constant (L(theta_1) v
    L(theta_2))``
    for random directions and for the most negative curvature direction (segment centred at
    the 1-D loss maximum along it, where the loss is locally concave), ``H in {1, 2, 4}``.
    The book's sharp constant ``1/cos(sqrt(c)/2)`` (``c = kappa_bar ||theta_1 - theta_2||^2 <= 1/2``)
    is asserted too (part ``sharp-constant``, formula ``sharp_constant(c)``), and so is the
    hypothesis (18) of the instances (part ``hypothesis-18``; ``boundary_factor`` is the factor
    2 of (18) used to build the segments).  Besides random and negative-curvature segments, segments
    searched adversarially (:func:`_glqc_search`: sizes ``(H, T, d, n)`` from ``(1, 1, 1, 1)``, L-BFGS
    and Nelder-Mead on the larger of ``r / constant`` and ``(r - 1) / (sharp(c) - 1)``, lengths up to the
    boundary of (18))."""
    rng = np.random.default_rng(seed)
    R = 1.0
    ratios, cs, sharp = [], [], []
    for i in range(pick(12, 48)):
        H = (1, 1, 2, 4)[i % 4]
        T, d = (2, 2) if i % 2 else (3, 2)
        Xs, ys = md.sample_bounded_tokens(4, T, d, R, seed=int(rng.integers(1 << 30)))
        loss = risk_fn(Xs, ys, H)
        a = random_heads(rng, H, T, d, u_scale=float(rng.uniform(2, 8)), w_scale=float(rng.uniform(1, 10)))
        if i % 3 == 2:
            v = f64(rng.standard_normal(a.numel()))
            r, c = _glqc_instance(loss, a, v, H, T, d, R, center=False, factor=boundary_factor)
        else:
            _, v = bottom_eigvec(loss, a)
            r, c = _glqc_instance(loss, a, v, H, T, d, R, center=True, factor=boundary_factor)
        ratios.append(r); cs.append(c); sharp.append(sharp_constant(c))
    res, searched = _glqc_search(constant, boundary_factor, sharp_constant, seed)
    for loss, t1, t2, H, T, d in searched:
        r, c = _glqc_segment(loss, t1, t2, H, T, d, R)
        ratios.append(r); cs.append(c); sharp.append(sharp_constant(c))
    check_bound(cs, [0.5] * len(cs), "the instances satisfy (18): kappa_bar ||theta_1-theta_2||^2 <= 1/2",
                seed=seed, check="hypothesis-18",
                no_search="a property of the construction: every segment's length is chosen by bisection "
                "against (18) with the factor boundary_factor (random, negative-curvature and searched "
                "segments alike), so c <= 1/2 holds by design and there is nothing to search",
                families=["the random, negative-curvature and searched segments of this claim's "
                          "glqc-boundary check"])
    fams = [f"{pick(12, 48)} segments of fixed data (n = 4, (T, d) in {{(2, 2), (3, 2)}}, H in {{1, 2, 4}}, "
            "R = 1) at the boundary of (18): along the most negative curvature direction, centred at the "
            "1-D maximum of the loss (two in three), or along a random direction from a random head",
            "adversarial segments [theta_1, theta_1 + s v], s a fraction of the boundary length of (18), "
            "L-BFGS (finite differences) + Nelder-Mead, sizes (H, T, d, n) from (1, 1, 1, 1)"]
    check_bound(ratios, sharp, "sharp GLQC constant 1/cos(sqrt(c)/2) (book's derivation)", seed=seed,
                check="sharp-constant", search=res, families=fams)
    return check_bound(ratios, [constant] * len(ratios), "GLQC at the boundary of (18)", seed=seed,
                       search=res, families=fams,
                       extra={"worst_ratio": float(max(ratios)), "max_c": float(max(cs))})


@claim_check("deora-prop-4", "one-dimensional", parts=("one-dimensional-sharp",))
def check_prop4_1d(*, c_max: float = 0.5, constant: float = 4.0 / 3.0,
                   sharp_constant: Callable[[float], float] = lambda c: 1.0 / math.cos(math.sqrt(c) / 2),
                   seed: int = 121) -> CheckRecord:
    """The 1-D core of GLQC: if ``g > 0`` and ``g'' >= -c g`` on ``[0, 1]`` with ``c <= c_max``,
    then ``max g <= constant (g(0) v g(1))``; instances ``g'' = -c g + f``, ``f >= 0`` random
    (and ``f = 0``, the extremal case ``g = cos``), and instances searched adversarially over
    ``(c, g(0), g(1), f)`` (``f`` piecewise linear on 1, 2, 4 knots, L-BFGS with finite differences and
    Nelder-Mead, on the larger of ``r / constant`` and ``(r - 1) / (sharp(c) - 1)``).  Also asserts the sharp
    constant
    ``1/cos(sqrt(c)/2)`` (to the discretization error)."""
    rng = np.random.default_rng(seed)
    N = pick(801, 2001)
    ratios, sharp_ratios, sharp = [], [], []
    for c in np.linspace(0, c_max, 9):
        for j in range(pick(6, 20)):
            f = np.zeros(N) if j == 0 else np.abs(rng.standard_normal(N)).cumsum() / N * rng.uniform(0, 2)
            g0, g1 = (1.0, 1.0) if j == 0 else tuple(rng.uniform(0.2, 1.0, 2))
            r = glqc_1d_ratio(float(c), f, g0, g1)
            if math.isnan(r):
                continue
            ratios.append(r)
            # the sharp constant 1/cos(sqrt(c)/2) is infinite (a vacuous bound) for c >= pi^2:
            # such instances are left out of the sharp comparison, not passed with rhs = inf
            if c < math.pi**2:
                sharp_ratios.append(r)
                sharp.append(sharp_constant(float(c)))

    # adversarial: (c, g(0), g(1), f) with f >= 0 piecewise linear on k knots (k = 1: constant)
    def parts(k: int, z: np.ndarray) -> tuple[float, np.ndarray, float, float]:
        c = c_max / (1.0 + math.exp(-z[0]))
        g0, g1 = (0.05 + 0.95 / (1.0 + math.exp(-v)) for v in z[1:3])
        knots = 2.0 * np.logaddexp(0.0, z[3:3 + k])                  # softplus: f >= 0
        f = np.interp(np.linspace(0, 1, N), np.linspace(0, 1, k), knots) if k > 1 else np.full(N, knots[0])
        return c, f, g0, g1

    def ratio(k: int, z: np.ndarray) -> float:
        c, f, g0, g1 = parts(k, z)
        r = glqc_1d_ratio(c, f, g0, g1)
        if math.isnan(r) or c >= math.pi**2:
            return -1.0                                               # g not positive: not an instance
        # against the sharp constant, the share of the allowed excess (r - 1)/(sharp(c) - 1) (<= 1 iff
        # r <= sharp(c)): the plain ratio would be maximized, with value 1, by any g with max at an end
        return max(r / constant, _excess_share(r, sharp_constant(c)) if c > 1e-8 else 0.0)

    def init(k: int, g: np.random.Generator) -> np.ndarray:   # c and g(0), g(1) high, f small or not
        return np.concatenate([g.normal(2.0, 2.0, 3), g.normal(-3.0, 3.0, k)])

    res, points = maximize_each(numpy_objective(ratio), init,
                                pick([1, 2, 4], [1, 2, 4, 8]), restarts=pick(3, 10), steps=pick(30, 300),
                                seed=seed)
    for k, (_, z) in points.items():
        c, f, g0, g1 = parts(k, z)
        r = glqc_1d_ratio(c, f, g0, g1)
        if not math.isnan(r) and c < math.pi**2:
            ratios.append(r)
            sharp_ratios.append(r)
            sharp.append(sharp_constant(c))
    fams = [f"g'' = -c g + f on {N} grid points, c in 9 values of [0, {c_max:g}]: f = 0 with g(0) = g(1) = 1 "
            "(g a cosine, the extremal case) and random non-decreasing f >= 0 with g(0), g(1) in [0.2, 1]",
            "adversarial (c, g(0), g(1), f >= 0 piecewise linear on k knots), L-BFGS (finite differences) + "
            f"Nelder-Mead, k in {{{', '.join(map(str, pick([1, 2, 4], [1, 2, 4, 8])))}}}"]
    check_bound(sharp_ratios, sharp, "1-D comparison: max g <= (g(0) v g(1)) / cos(sqrt(c)/2)", rtol=1e-5,
                tolerance_reason="max g comes from a second-order finite-difference solution of "
                "g'' = -c g + f on the grid of f (801 points at smoke scale, 2001 at full), exact only "
                "up to its O(h^2) discretization error, about 1e-6 relative",
                seed=seed, check="one-dimensional-sharp", search=res, families=fams)
    return check_bound(ratios, [constant] * len(ratios), f"1-D GLQC with c <= {c_max}", seed=seed,
                       search=res, families=fams, extra={"worst_ratio": float(max(ratios))})
