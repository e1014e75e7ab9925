"""Check of experiment E4 (teacher-student stability) for Qin, Zhou & Zhu (2025), on the book's
**reconstructed** model (``book/qin/experiments.md``, section E4).

The statement is the linear rate of the reconstructed Theorem 2 (and the abstract's "converges
linearly"), tested on runs outside the proved regime: every run *with* the attention residual
whose step size is at most ``1 / lambda_max`` (the top Hessian eigenvalue at initialisation,
the local counterpart of the theorem's ``eta <= 1/Q_1``) contracts its loss by at least the
factor ``contraction`` over every window of ``tau / eta`` GD steps (``tau`` units of
gradient-flow time), until the loss reaches rounding level.  At full scale the check reads the
committed ``results/qin/e4.json``; at smoke scale it trains the smoke configuration of E4 live.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from attention_theory.config import pick
from attention_theory.verify import CheckRecord, check_bound, claim_check

#: Gradient-flow time ``eta * W`` of one window, and the rounding floor of :func:`window_ratios`.
E4_TAU = 3.0
E4_FLOOR = 1e-20


def _e4_window(eta: float, record: int) -> int:
    """``tau / eta`` steps, rounded to a multiple of the record spacing (at least one)."""
    return max(record, int(round(E4_TAU / eta / record)) * record)


def _e4_live(variant: str) -> dict[str, Any]:
    """The smoke configuration of E4 for ``variant``, at the one step size 0.02 (below
    1/lambda_max on all three smoke instances)."""
    from attention_theory.qin.experiments import SIZES
    from attention_theory.qin.stability import e4_runs

    cfg = {k: v for k, v in SIZES["smoke"]["e4"].items() if k != "etas"}
    runs = e4_runs(eta=0.02, variant=variant, **cfg)
    return {"config": dict(cfg, etas=[0.02]), "runs": runs, "source": "smoke configuration of E4 at eta 0.02, live"}


def _e4_committed() -> dict[str, Any]:
    from attention_theory.qin.experiments import results_dir
    from attention_theory.results import read_result

    res = read_result(results_dir() / "e4.json")
    return {"config": res["provenance"]["config"], "runs": res["data"]["runs"],
            "source": "committed results/qin/e4.json"}


@claim_check("qin-fig-1", "e4-linear-rate-with-residual")
def check_e4_linear_rate(data: Mapping[str, Any] | None = None, *, variant: str = "residual",
                         contraction: float = 0.5, eta_factor: float = 1.0) -> CheckRecord:
    """Every E4 run of ``variant`` with ``eta * lambda_max(theta0) <= eta_factor`` contracts its
    loss by at least ``contraction`` over every window of ``3 / eta`` steps (a diverged such run
    fails).  ``data``: ``{"config", "runs"}`` of E4 (default: the committed full-scale result at
    full scale, the live smoke configuration at smoke scale)."""
    from attention_theory.qin.stability import window_ratios

    if data is None:
        data = _e4_committed() if pick(False, True) else _e4_live(variant)
    runs = [r for r in data["runs"] if r["variant"] == variant and r["eta"] * r["lambda_max"] <= eta_factor]
    if not runs:
        raise ValueError(f"no {variant} run of E4 has eta * lambda_max <= {eta_factor}: nothing to check")
    record = int(data["config"]["record"])
    lhs, where, n_windows = [], [], 0
    for r in runs:
        if r["diverged"]:
            lhs.append(math.inf)
            where.append((r["seed"], r["eta"], "diverged"))
            continue
        w = window_ratios(r["step"], r["loss"], window=_e4_window(r["eta"], record), floor=E4_FLOOR)
        if not w:
            raise ValueError(f"run seed {r['seed']}, eta {r['eta']}: no complete window of {_e4_window(r['eta'], record)} "
                             "steps above the rounding floor")
        lhs += w
        n_windows += len(w)
        where.append((r["seed"], r["eta"], max(w)))
    cfg = data["config"]
    sizes = ", ".join(f"{k}={cfg[k]}" for k in ("N", "n_seq", "d", "dk", "dv", "m", "steps"))
    etas = sorted({float(r["eta"]) for r in runs})
    return check_bound(lhs, contraction,
                       f"L(t + 3/eta) / L(t) <= {contraction:g} for every {variant} run with eta lambda_max <= "
                       f"{eta_factor:g}",
                       params={"variant": variant, "contraction": contraction, "eta_factor": eta_factor,
                               "tau": E4_TAU, "floor": E4_FLOOR},
                       extra={"source": data.get("source", "given data"), "runs_checked": len(runs),
                              "windows": n_windows, "worst_per_run": [list(x) for x in where],
                              "etas_checked": etas},
                       families=[f"E4 teacher-student runs ({data.get('source', 'given data')}: {sizes}), "
                                 f"{variant} student, seeds {list(cfg['seeds'])}, step sizes {etas} with "
                                 f"eta lambda_max(theta0) <= {eta_factor:g}, every window of 3/eta GD steps "
                                 f"until the loss falls below {E4_FLOOR:g} L0"],
                       no_search="an empirical statement about GD training runs on a fixed grid of seeds and step "
                                 "sizes (one teacher and student draw per seed): there is no continuous instance "
                                 "space to search without retraining")
