"""Checks of the chapter ``book/foundations/losses.md``: cross-entropy (gradient, Lipschitz
constants, clipping) and the logistic loss of Deora et al.'s Eq. (24).

Every function here is a registered check (:func:`~attention_theory.verify.claim_check`) with
keyword-only arguments. They carry the statement's constant or formula, so the chapter calls
the check with the paper's version and ``tests/foundations/test_nc_losses.py`` calls it with a
wrong one, which must raise :class:`~attention_theory.verify.ClaimViolation`.  Sizes follow
``ATTN_SCALE``.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import torch

from attention_theory.config import pick
from attention_theory.foundations.losses import (
    clipped_cross_entropy,
    cross_entropy,
    cross_entropy_grad,
    empirical_logistic_risk,
    logistic_loss,
    logistic_loss_d1,
    logistic_loss_d2,
)
from attention_theory.search import maximize_over_sizes, numpy_objective
from attention_theory.verify import (
    CheckRecord,
    bound_outcome,
    check_bound,
    check_identity,
    claim_check,
    confirm_erratum,
    limit_sequence,
)


def _limits(paper: bool, family: str, parameter: str, values: list[float], ratios: list[float], *,
            supremum: float = 1.0) -> list[dict] | None:
    """``[limit_sequence(...)]`` when the check runs with the statement's own constant (``paper``),
    else ``None``: under a negative control's wrong constant the family's instances stay among the
    bound's (and fail it), but no supremum is claimed for them."""
    return [limit_sequence(family, parameter, values, ratios, supremum=supremum)] if paper else None


@claim_check("trauger-app-g", "gradient-autograd")
def check_cross_entropy_gradient(*, grad: Callable[[np.ndarray, np.ndarray], np.ndarray] = cross_entropy_grad,
                                 seed: int = 20) -> CheckRecord:
    """``grad_x L(x, y) = softmax(x) - e_y`` against autograd, K in {2, 10, 1000}."""
    rng = np.random.default_rng(seed)
    comp, ref = [], []
    for K in (2, 10, 1000):
        for _ in range(pick(10, 100)):
            x = rng.standard_normal(K) * rng.choice([0.1, 1, 20])
            y = int(rng.integers(K))
            t = torch.as_tensor(x).requires_grad_(True)
            torch.nn.functional.cross_entropy(t[None], torch.tensor([y])).backward()
            comp.append(grad(x, np.asarray(y)))
            ref.append(t.grad.numpy())
    return check_identity(np.concatenate(comp), np.concatenate(ref),
                          "cross-entropy gradient equals autograd", atol=1e-12, seed=seed)


def _ce_ratios(loss: Callable[[np.ndarray, np.ndarray], np.ndarray], seed: int,
               torch_loss: Callable[[torch.Tensor], torch.Tensor]) -> tuple[np.ndarray, dict, Any]:
    """Random and adversarial ratios ``|loss(a, 0) - loss(b, 0)| / ||a - b||_inf``.  The adversary's
    Nelder-Mead evaluates ``loss`` (the code under test); its L-BFGS differentiates ``torch_loss``,
    the same loss of the logits for the true class 0 written in torch."""
    rng = np.random.default_rng(seed)
    ratios = []
    for K in (2, 10, 1000):
        for _ in range(pick(40, 400)):
            y = int(rng.integers(K))
            a = rng.standard_normal(K) * rng.choice([0.1, 1, 10])
            b = a + rng.standard_normal(K) * rng.choice([1e-4, 1e-2, 1])
            ratios.append(abs(float(loss(a, np.asarray(y)) - loss(b, np.asarray(y)))) / np.abs(a - b).max())
        # The extremal direction of the proof: -e_y + sum_{c != y} e_c at tiny softmax(x)_y.
        a = np.zeros(K)
        a[0] = -30.0
        dirn = np.ones(K)
        dirn[0] = -1.0
        # (a step of 1e-3 keeps the rounding error of the loss difference near 1e-13)
        ratios.append(abs(float(loss(a, np.asarray(0)) - loss(a + 1e-3 * dirn, np.asarray(0)))) / 1e-3)

    # Adversarial: L-BFGS and Nelder-Mead, K in {2, 3, 10} classes, from starts where softmax puts
    # little mass on the true class.
    def obj(K: int, z: Any) -> Any:
        a, b = z[:K], z[K:]
        if isinstance(z, torch.Tensor):
            return (torch_loss(a) - torch_loss(b)).abs() / ((a - b).abs().max() + 1e-300)
        den = np.abs(a - b).max()
        return abs(float(loss(a, np.asarray(0)) - loss(b, np.asarray(0)))) / den if den > 0 else 0.0

    def init(K: int, r: np.random.Generator) -> np.ndarray:
        a = r.standard_normal(K)
        a[0] -= r.uniform(0, 8)
        return np.concatenate([a, a + r.standard_normal(K) * 0.1])

    res = maximize_over_sizes(obj, init, (2, 3, 10), restarts=pick(4, 20), steps=pick(60, 400), seed=seed)
    ratios.extend(res.per_size.values())
    return np.asarray(ratios), {f"K={K}": v for K, v in res.per_size.items()}, res


def _ce_families() -> list[str]:
    return [f"random pairs, K in {{2, 10, 1000}}, logits N(0, 1) x {{0.1, 1, 10}}, perturbations of scale "
            f"{{1e-4, 1e-2, 1}} ({pick(40, 400)} per K)",
            "K in {2, 10, 1000}: x_y = -30, other logits 0, a step 1e-3 along -e_y + sum_{c != y} e_c",
            "adversarial L-BFGS + Nelder-Mead over logit pairs, K in {2, 3, 10}, starts with little mass on "
            "the true class"]


#: the limit family of App. G's constant: ``K = 2``, true class 0, ``x = (-m, 0)``, step ``h`` along
#: the proof's direction ``(-1, 1)``; the secant ratio is ``2 (1 - s_0) - O(h s_0)`` with
#: ``s_0 = 1/(1 + e^m)``
_CE_M = (1.0, 2.0, 4.0, 8.0, 16.0)
_CE_FAMILY = "K = 2, true class 0, x = (-m, 0), step 1e-3 along (-1, 1) (the proof's direction)"


def _ce_secant(loss: Callable[[np.ndarray, np.ndarray], np.ndarray], x: np.ndarray, h: float) -> float:
    """``|loss(x, 0) - loss(x + h (-1, 1), 0)| / h`` for ``K = 2``."""
    return abs(float(loss(x, np.asarray(0)) - loss(x + h * np.array([-1.0, 1.0]), np.asarray(0)))) / h


@claim_check("trauger-app-g", "lipschitz-linf")
def check_cross_entropy_lipschitz(*, constant: float = 2.0, seed: int = 21) -> CheckRecord:
    """``|L(x1, y) - L(x2, y)| <= constant ||x1 - x2||_inf`` (App. G has 2; sup is 2).  The gradient's
    l1 norm is ``2 (1 - s_y)``, so the ratio tends to 2 as ``s_y -> 0`` along the proof's direction:
    the record's limit ``m -> infinity`` of :data:`_CE_FAMILY` (supremum ``2 / constant``)."""
    ratios, best, res = _ce_ratios(cross_entropy, seed, lambda a: torch.logsumexp(a, 0) - a[0])
    tight = [_ce_secant(cross_entropy, np.array([-m, 0.0]), 1e-3) for m in _CE_M]
    ratios = np.append(ratios, tight)
    return check_bound(ratios, np.full_like(ratios, constant),
                       f"cross-entropy is {constant:g}-Lipschitz in l-inf", rtol=1e-9, seed=seed,
                       params={"constant": constant}, extra={"adversarial_best": best}, search=res,
                       families=_ce_families() + [_CE_FAMILY + ", m = " + ", ".join(f"{m:g}" for m in _CE_M)],
                       limits=_limits(constant >= 2.0, _CE_FAMILY, "m -> infinity (s_0 -> 0)", list(_CE_M),
                                      [r / constant for r in tight], supremum=2.0 / constant))


@claim_check("trauger-app-g", "clipped-lipschitz")
def check_clipped_cross_entropy_lipschitz(*, constant: float = 2.0, clip: float = 5.0,
                                          seed: int = 22) -> CheckRecord:
    """The clipped loss ``min(L, clip)`` keeps the constant (min with a constant is 1-Lipschitz).

    Its sharp constant is ``2 (1 - e^-clip)``: ``min(L, clip)`` has gradient ``softmax(x) - e_y`` where
    ``L < clip`` and 0 elsewhere (``L`` is convex, so a segment meets ``{L < clip}`` in an interval), and
    there ``s_y = e^-L > e^-clip``, so the gradient's l1 norm ``2 (1 - s_y)`` stays below
    ``2 (1 - e^-clip)``.  It is approached by secants of length ``tau`` ending at the level
    ``L = clip - tau`` (``K = 2``, :data:`_CE_FAMILY`'s direction), ``tau -> 0``: the record's limit,
    supremum ``2 (1 - e^-clip) / constant`` (0.99326 for ``clip = 5`` and the paper's 2)."""
    loss = (lambda x, y: clipped_cross_entropy(x, y, clip))
    ratios, best, res = _ce_ratios(loss, seed, lambda a: torch.clamp(torch.logsumexp(a, 0) - a[0], max=clip))
    taus = [t * min(1.0, clip / 2) for t in (1.0, 0.1, 1e-2, 1e-3)]  # clip - tau > 0
    tight = []
    for tau in taus:
        m = math.log(math.expm1(clip - tau))  # L((-m, 0), 0) = log(1 + e^m) = clip - tau
        b = np.array([-m, 0.0])
        tight.append(_ce_secant(loss, b - tau * np.array([-1.0, 1.0]), tau))
    ratios = np.append(ratios, tight)
    family = (f"K = 2, true class 0, secant of length tau along (-1, 1) ending at the level L = clip - tau "
              f"(clip = {clip:g})")
    sup = 2.0 * (1.0 - math.exp(-clip)) / constant
    return check_bound(ratios, np.full_like(ratios, constant),
                       f"clipped cross-entropy (clip={clip:g}) is {constant:g}-Lipschitz in l-inf",
                       rtol=1e-9, seed=seed, params={"constant": constant, "clip": clip},
                       extra={"adversarial_best": best, "sharp_constant": 2.0 * (1.0 - math.exp(-clip))},
                       search=res,
                       families=_ce_families() + [family + ", tau = " + ", ".join(f"{t:g}" for t in taus)],
                       limits=_limits(constant >= 2.0, family, "tau -> 0", taus,
                                      [r / constant for r in tight], supremum=sup))


def _z_grid() -> np.ndarray:
    return np.linspace(-60.0, 60.0, pick(200_001, 1_000_001))


@claim_check("deora-eq-24", "derivatives-autograd")
def check_logistic_derivatives(*, d1: Callable[[np.ndarray], np.ndarray] = logistic_loss_d1,
                               d2: Callable[[np.ndarray], np.ndarray] = logistic_loss_d2,
                               seed: int = 30) -> CheckRecord:
    """``l'(z) = -sigmoid(-z)`` and ``l''(z) = sigmoid(z) sigmoid(-z)`` against autograd."""
    z = np.linspace(-40, 40, 2001)
    t = torch.as_tensor(z).requires_grad_(True)
    # torch's softplus switches to the identity above 20 (an e^-20 error in the
    # gradient), so the reference is the exact form log(1 + e^-z) = logaddexp(0, -z).
    (g,) = torch.autograd.grad(torch.logaddexp(torch.zeros_like(t), -t).sum(), t, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), t)
    return check_identity(np.concatenate([d1(z), d2(z)]), np.concatenate([g.detach().numpy(), h.numpy()]),
                          "logistic-loss derivatives equal autograd", atol=1e-14, seed=seed)


@claim_check("deora-eq-24", "self-bounded")
def check_logistic_self_bounded(*, C: float = 1.0, seed: int = 31) -> CheckRecord:
    """``|l'(z)| <= C l(z)`` with ``C = 1`` on a fine grid plus adversarial maximization of the ratio.
    With ``u = e^-z`` the ratio is ``u / ((1 + u) log(1 + u)) = 1 - u/2 + O(u^2)``: it tends to 1 as
    ``z -> +infinity`` (the record's limit, supremum ``1 / C``)."""
    z = _z_grid()
    lhs, rhs = list(np.abs(logistic_loss_d1(z))), list(C * logistic_loss(z))
    # adversary on the package's l' and l themselves: the statement is scalar (one size), starts
    # spread over z in (-10, 60)
    res = maximize_over_sizes(
        numpy_objective(lambda _, t: float(np.abs(logistic_loss_d1(t)).sum() / logistic_loss(t).sum()),
                        difference="forward", rel_step=1e-7),
        lambda _, r: r.uniform(-10, 60, 1), (1,), restarts=pick(8, 32), steps=pick(100, 400), seed=seed)
    zs = res.best_x
    lhs += list(np.abs(logistic_loss_d1(zs)))
    rhs += list(C * logistic_loss(zs))
    z_lim = np.array([2.0, 4.0, 8.0, 16.0, 32.0])
    lhs += list(np.abs(logistic_loss_d1(z_lim)))
    rhs += list(C * logistic_loss(z_lim))
    tight = list(np.abs(logistic_loss_d1(z_lim)) / (C * logistic_loss(z_lim)))
    return check_bound(lhs, rhs, f"|l'| <= {C:g} * l for the logistic loss", rtol=1e-12, seed=seed,
                       params={"C": C}, extra={"adversarial_best_z": float(zs[0])}, search=res,
                       families=[f"grid z in [-60, 60], {z.size} points",
                                 "adversarial L-BFGS + Nelder-Mead over z, starts in (-10, 60)",
                                 "z = 2, 4, 8, 16, 32 (both sides ~ e^-z)"],
                       limits=_limits(C >= 1.0, "the scalar margin z (both sides ~ e^-z)", "z -> +infinity",
                                      list(z_lim), tight, supremum=1.0 / C))


@claim_check("deora-eq-24", "curvature-and-slope", parts=("strict-convexity",))
def check_logistic_curvature(*, curvature_bound: float = 0.25, slope_bound: float = 1.0,
                             second_derivative: Callable[[np.ndarray], np.ndarray] = logistic_loss_d2,
                             seed: int = 32) -> CheckRecord:
    """``0 < l'' <= 1/4`` (max at 0), ``|l'| <= 1``, and ``l(log(1/eps)) <= eps``.

    ``second_derivative`` is the ``l''`` whose sign the part ``strict-convexity`` asserts (the
    second derivative of a non-convex loss is its negative control)."""
    z = _z_grid()
    eps = 10.0 ** -np.linspace(0.01, 12, 500)

    # adversary: one scalar statement per "size": the three ratios of the main record (z free;
    # eps = e^{-softplus(x)} in (0, 1)) and -l''(z) on |z| < 30 (z = 30 tanh x) for strict convexity
    def obj(kind: str, x: np.ndarray) -> float:
        if kind == "l''":
            return float(logistic_loss_d2(x)[0]) / curvature_bound
        if kind == "|l'|":
            return float(np.abs(logistic_loss_d1(x))[0]) / slope_bound
        if kind == "tail":
            e = np.exp(-np.logaddexp(0.0, x))
            return float(logistic_loss(np.log(1 / e))[0] / e[0])
        return -float(second_derivative(30 * np.tanh(x))[0])

    res = maximize_over_sizes(numpy_objective(obj, difference="forward", rel_step=1e-7), lambda _,
                              r: r.uniform(-10, 10, 1),
                              ("l''", "|l'|", "tail", "-l'' on |z|<30"), restarts=pick(4, 16),
                              steps=pick(60, 300), seed=seed)
    found = list(res.per_size.values())
    # strict: -l'' <= -1e-300, i.e. l'' >= 1e-300 > 0 (the right side is negative, not a tolerance)
    check_bound(np.append(-second_derivative(z[np.abs(z) < 30]), found[3]), -1e-300,
                "l'' > 0 (strict convexity) where representable (grid and adversarial minimum)",
                rtol=0.0, seed=seed, check="strict-convexity", search=res,
                families=["grid z in (-30, 30) (the grid of the main record)",
                          "adversarial L-BFGS + Nelder-Mead of -l''(30 tanh x)",
                          "a sign statement (right side -1e-300): the infimum of l'' is 0, approached as "
                          "|z| -> infinity, so there is no ratio to approach"])
    lhs = np.concatenate([logistic_loss_d2(z) / curvature_bound, np.abs(logistic_loss_d1(z)) / slope_bound,
                          logistic_loss(np.log(1 / eps)) / eps, found[:3]])
    return check_bound(lhs, np.ones_like(lhs), f"l'' <= {curvature_bound:g}, |l'| <= {slope_bound:g}, "
                       "l(log 1/eps) <= eps", rtol=1e-12, seed=seed,
                       params={"curvature_bound": curvature_bound, "slope_bound": slope_bound}, search=res,
                       families=[f"grid z in [-60, 60], {z.size} points (contains z = 0, where l'' = 1/4 "
                                 "exactly: ratio 1 attained)",
                                 "eps = 10^-(0.01 ... 12), 500 values (l(log 1/eps)/eps = log(1 + eps)/eps "
                                 "-> 1 as eps -> 0)",
                                 "adversarial L-BFGS + Nelder-Mead over z (one scalar per ratio)"])


def _random_margins(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(int(rng.integers(1, 50))) * rng.choice([0.1, 1, 5, 30]) + rng.normal(0, 2)
            for _ in range(pick(200, 2000))]


@claim_check("deora-eq-24", "empirical-risk-facts")
def check_empirical_risk_facts(*, seed: int = 33) -> CheckRecord:
    """``L^' <= L^``, ``L^' <= 1`` and ``L^'' <= 1/4`` on random sets of margins, and on the margins
    an adversary finds (L-BFGS and Nelder-Mead on each ratio, ``n in {1, 3}`` margins)."""
    lhs, rhs = [], []
    for z in _random_margins(seed):
        r = empirical_logistic_risk(z)
        lhs += [r["L1"], r["L1"], r["L2"]]
        rhs += [r["L"], 1.0, 0.25]

    def obj(size: tuple[str, int], z: np.ndarray) -> float:
        r = empirical_logistic_risk(z)
        return {"L'/L": r["L1"] / r["L"] if r["L"] > 0 else 0.0, "L'": r["L1"],
                "L''/(1/4)": r["L2"] / 0.25}[size[0]]

    res = maximize_over_sizes(numpy_objective(obj, difference="forward", rel_step=1e-7), lambda size,
                              g: g.standard_normal(size[1]) * 5,
                              [(k, n) for k in ("L'/L", "L'", "L''/(1/4)") for n in (1, 3)],
                              restarts=pick(3, 12), steps=pick(30, 200), seed=seed)
    lhs += list(res.per_size.values())
    rhs += [1.0] * len(res.per_size)
    # all margins 0: L'' = l''(0) = 1/4, the third fact with equality
    r0 = empirical_logistic_risk(np.zeros(3))
    lhs.append(r0["L2"])
    rhs.append(0.25)
    return check_bound(lhs, rhs, "averaged derivative facts of Eq. (24)", rtol=1e-12, seed=seed, search=res,
                       families=[f"{pick(200, 2000)} random margin sets, n in 1..49, N(0, 1) x "
                                 f"{{0.1, 1, 5, 30}} + N(0, 2) offset",
                                 "adversarial L-BFGS + Nelder-Mead per ratio, n in {1, 3} margins",
                                 "three margins 0 (L'' = 1/4: equality, attained exactly)"])


@claim_check("deora-eq-24", "printed-risk-le-one")
def check_printed_risk_le_one(*, printed_cap: float = 1.0, seed: int = 34) -> CheckRecord:
    """Eq. (24) prints ``L^' <= L^ <= 1``; ``L^ <= 1`` is false (margin -1 gives 1.313).

    The corrected chain ``L^' <= min(L^, 1)`` holds.  ``printed_cap`` is the printed
    upper bound on ``L^``; the erratum is confirmed when it fails on some margin set.
    """
    sets = _random_margins(seed) + [np.array([-1.0])]
    printed = bound_outcome([empirical_logistic_risk(z)["L"] for z in sets], printed_cap, rtol=1e-12,
                            instances=sets)
    corrected = bound_outcome([empirical_logistic_risk(z)["L1"] for z in sets],
                              [min(empirical_logistic_risk(z)["L"], 1.0) for z in sets], rtol=1e-12,
                              instances=sets)
    return confirm_erratum(
        printed, corrected,
        description="the empirical logistic risk is not bounded by 1; its derivative average is",
        printed_text="Eq. (24): L^'(theta) <= L^(theta) <= 1",
        corrected_text="L^'(theta) <= min(L^(theta), 1)",
        printed_tex=r"\widehat L'(\theta)\le\widehat L(\theta)\le 1",
        corrected_tex=r"\widehat L'(\theta)\le\min\bigl(\widehat L(\theta),1\bigr)",
        source="Deora et al., TMLR version (seed 001), App. A, Eq. (24)", kind="false-statement",
        where="statement", seed=seed)

