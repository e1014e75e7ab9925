"""The experiment ``mirror-descent-training`` of Julistiono, Tarzanagh & Azizan (the book's
reproduction plan E1-E4), used by the chapter ``book/julistiono/experiments.md``.

* E1: directional convergence of normalized l_p-AttGD to the l_q-AttSVM, ``p, q in {1.75, 2, 3}``
  (n=6, T=8, d=10, eta=0.1, K = 1500/2000/20000, seeds 1..S), Bregman distance vs iteration,
  softmax saturation, learned ``W`` per ``p`` (implicit bias).  The data sets are drawn as the
  authors' public generator draws them (part ``e1``); part ``e1-book-v1`` reruns E1 on the book's
  earlier reconstruction of the generator, for comparison.
* E2: joint ``(W, v)`` training on the paper's two-sample example.
* E3/E4 **stand-ins** (IMDb and CIFAR-10 are not reachable offline): a planted-sentiment-token
  sequence task trained with l_p-MD on the attention model, and a tiny ViT on synthetic 8x8 shapes,
  l_{1.1}-MD vs Adam vs GD.  They exercise the optimiser and the sparsity metrics only.

``python -m attention_theory run julistiono mirror-descent-training --scale {smoke,full}``
writes ``e1.json``, ``e1-single.json`` (one run per ``p`` from ``W(0) = 0``, the authors' plot of
directional paths), ``e2.json``, ``e3_standin.json``, ``e4_standin.json`` with provenance
(``--parts e1-book-v1`` writes ``e1-book-v1.json``) into
``results/julistiono-mirror-descent-training/``.  Each part declares its configuration at each
scale (:func:`e1_config`, :func:`e1_book_v1_config`, :func:`e1_single_config`, :func:`e2_config`,
:func:`e3_config`, :func:`e4_config`), and its entry point (:func:`run_e1`, :func:`run_e1_seeds`,
:func:`run_e1_singles`, :func:`run_e2`, :func:`run_e3_standin`, :func:`run_e4_standin`) computes
exactly that configuration, so the chapter's live smoke runs, which call the same entry points with
``EXPERIMENT.part(name).config_for("smoke")``, compute what ``--scale smoke`` writes.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Mapping

import numpy as np

from attention_theory.experiment import Experiment, Part, PartResult, RunContext, Shards, shard_output
from attention_theory.foundations.mirror import directional_bregman
from attention_theory.julistiono import model as mj
from attention_theory.julistiono.mirror_descent import joint_lp_md, torch_md_step_
from attention_theory.julistiono.svm import lp_att_svm, lp_v_svm, select_alpha
from attention_theory.provenance import json_data
from attention_theory.validation import as_array, check_int, check_positive, check_seed, torch_generator

__all__ = ["E1_PS", "E_STEPS", "E1_BLOCK", "run_e1", "run_e1_seeds", "run_e1_single", "run_e1_singles",
           "E1_SINGLE_ENTRIES", "E1_SINGLE_ARROWS", "E2_PROB_STEPS", "run_e2", "run_e3_standin",
           "run_e4_standin", "sparsity", "EXPERIMENT", "e1_conclusions", "e1_conclusions_changed",
           "e1_config", "e1_book_v1_config", "e1_single_config", "e2_config", "e3_config", "e4_config"]

E1_PS = (1.75, 2.0, 3.0)
E_STEPS = {1.75: 1500, 2.0: 2000, 3.0: 20000}
#: E1 records the iterates every this many steps
E1_RECORD_EVERY = 50


def sparsity(w: Any, rel: float = 1e-2) -> float:
    """Fraction of entries with ``|w| < rel * max|w|`` (``w`` of any shape, ``rel >= 0``)."""
    check_positive(rel, "rel", allow_zero=True)
    a = np.abs(as_array(w, "w")).ravel()
    return float(np.mean(a < rel * a.max())) if a.max() > 0 else 1.0


# ---------------------------------------------------------------------------
# E1
# ---------------------------------------------------------------------------


def _e1_block(p: float, seeds: tuple[int, ...], *, record_every: int = 50, steps: int | None = None,
              eta: float = 0.1, data: str = "authors") -> dict[str, Any]:
    """E1 at MD's ``p`` on the data sets ``seeds`` drawn by the generator ``data`` (trained as one
    batch; each seed's numbers do not depend on the others in the batch): the per-seed quantities
    that :func:`_e1_summary` reduces, as JSON-ready arrays with the seed last (curves:
    ``(records, seeds)``)."""
    from attention_theory.julistiono.attention import e1_run

    r = e1_run(tuple(seeds), p, True, record_every, steps=steps, eta=eta, data=data)
    return {"seeds": list(seeds), "steps": r["steps"], "max_prob": r["max_prob"], "losses": r["losses"],
            "norms": r["norms"], "sparsity_final": [sparsity(W) for W in r["final"]],
            "alpha": [a.tolist() for a in r["alpha"]],
            "D": {str(q): r["D"][q] for q in E1_PS}, "lp_dist": {str(q): r["lp_dist"][q] for q in E1_PS},
            "W_final_first": r["final"][0], "svm_own_first": r["svm"][p][0]}


def _e1_summary(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """One ``p``'s entry of ``e1.json`` from its :func:`_e1_block` outputs (in seed order):
    median and quartiles over seeds of the curves, the final values per seed, seed 1's ``W``."""
    def cat(key: str, axis: int, sub: str | None = None) -> np.ndarray:
        parts = [b[key] if sub is None else b[key][sub] for b in blocks]
        return np.concatenate([np.asarray(x, dtype=np.float64) for x in parts], axis=axis)

    curves = {}
    for q in E1_PS:
        D = cat("D", 1, str(q))
        curves[str(q)] = {"median": np.median(D, axis=1), "q25": np.quantile(D, 0.25, axis=1),
                          "q75": np.quantile(D, 0.75, axis=1), "final": D[-1],
                          "lp_dist_final": cat("lp_dist", 0, str(q))}
    return {
        "steps": np.asarray(blocks[0]["steps"]), "curves": curves,
        "max_prob_median": np.median(cat("max_prob", 1), axis=1),
        "loss_median": np.median(cat("losses", 1), axis=1),
        "norm_median": np.median(cat("norms", 1), axis=1),
        "W_final_seed1": np.asarray(blocks[0]["W_final_first"]),
        "svm_own_seed1": np.asarray(blocks[0]["svm_own_first"]),
        "sparsity_final": [float(x) for b in blocks for x in b["sparsity_final"]],
        "alpha": [a for b in blocks for a in b["alpha"]],
    }


def run_e1(config: Mapping[str, Any], *, record_every: int = E1_RECORD_EVERY) -> dict[str, Any]:
    """E1 at ``config`` (:func:`e1_config` or :func:`e1_book_v1_config`) over seeds ``1..n_seeds`` in
    this process: summary curves (median/quartiles over seeds) per (p, q), on the data sets of the
    generator ``config["data"]`` (``"authors"`` or ``"book-v1"``, see
    :data:`attention_theory.julistiono.attention.E1_DATA`).  ``run julistiono
    mirror-descent-training --parts e1`` (``e1-book-v1``) computes the same in seed blocks."""
    seeds = tuple(range(1, int(config["n_seeds"]) + 1))
    blocks = {p: json_data(_e1_block(p, seeds, record_every=record_every, **_e1_run_args(config, p)))
              for p in E1_PS}
    return {"seeds": list(seeds), "runs": {str(p): _e1_summary([blocks[p]]) for p in E1_PS}}


def run_e1_seeds(config: Mapping[str, Any], seeds: tuple[int, ...]) -> dict[float, dict[str, Any]]:
    """The E1 runs of :func:`attention_theory.julistiono.attention.e1_run` at ``config``
    (:func:`e1_config`: its ``eta``, ``steps`` per ``p`` and data generator; stable gradients, a
    record every 50 steps) on the data sets ``seeds``, one per MD ``p`` in :data:`E1_PS` (the chapter's
    live look at the learned matrices of seed 1)."""
    from attention_theory.julistiono.attention import e1_run

    seeds = tuple(check_seed(s) for s in seeds)
    return {p: e1_run(seeds, p, True, E1_RECORD_EVERY, **_e1_run_args(config, p)) for p in E1_PS}


#: seeds per shard of E1 (full scale: 100 seeds, so 10 blocks for each of the 3 values of p)
E1_BLOCK = {"full": 10, "smoke": 5}


def _e1_seeds(scale: str) -> tuple[int, ...]:
    return tuple(range(1, int(e1_config(scale)["n_seeds"]) + 1))


def _e1_plan(ctx: RunContext) -> list[tuple[str, Any]]:
    seeds, size = _e1_seeds(ctx.scale), E1_BLOCK[ctx.scale]
    blocks = [seeds[i:i + size] for i in range(0, len(seeds), size)]
    return [(label, (label, p, b)) for p in E1_PS for b in blocks
            for label in [f"p-{p:g}-seeds-{b[0]}-{b[-1]}"]]


#: E1's parts: the part name -> the generator of its data sets (a key of ``attention.E1_DATA``)
E1_PARTS = {"e1": "authors", "e1-book-v1": "book-v1"}
_E1_DATA_NOTE = {
    "authors": "the authors' generator (AttentionMD synthetic-data/tools/generate_data.py at ff5fdf5: one "
               "torch.Generator seeded with the seed draws v, the label signs, X, Z in float32, in that "
               "order; v, tokens and queries l2-normalised in float32, then cast to float64)",
    "book-v1": "the book's earlier reconstruction (numpy default_rng(seed): X, z, v unit-normalised "
               "Gaussians, Y signs of Gaussians)",
}
_E1_W0_NOTE = ("N(0, 1) entries from numpy default_rng(10000 + seed); the authors' W(0) (--std 1) comes from "
               "the unseeded global torch generator and cannot be reproduced")


def _check_scale(scale: str) -> str:
    if not isinstance(scale, str) or scale not in ("smoke", "full"):
        raise ValueError(f"scale: expected 'smoke' or 'full', got {scale!r}")
    return scale


def e1_config(scale: str, data: str = "authors") -> dict[str, Any]:
    """Configuration of the part ``e1`` at ``scale`` (``"smoke"``: seeds 1-10, ``"full"``: 1-100):
    ``n_seeds``, ``eta``, ``ps``, ``steps`` per ``p``, ``normalized``, the sizes ``n, T, d``, the data
    generator ``data`` (with its description) and how ``W(0)`` is drawn (the arguments of
    :func:`run_e1`)."""
    if not isinstance(data, str) or data not in _E1_DATA_NOTE:
        raise ValueError(f"data must be one of {tuple(_E1_DATA_NOTE)}, got {data!r}")
    return {"n_seeds": 100 if _check_scale(scale) == "full" else 10, "eta": 0.1, "ps": E1_PS,
            "steps": dict(E_STEPS), "normalized": True, "n": 6, "T": 8, "d": 10, "data": data,
            "data_generator": _E1_DATA_NOTE[data], "W0": _E1_W0_NOTE}


def e1_book_v1_config(scale: str) -> dict[str, Any]:
    """Configuration of the part ``e1-book-v1``: :func:`e1_config` on the book's earlier data sets."""
    return e1_config(scale, data="book-v1")


def _e1_run_args(config: Mapping[str, Any], p: float) -> dict[str, Any]:
    """The arguments of ``e1_run`` that ``config`` sets for MD's ``p`` (``steps`` keyed by ``p``)."""
    steps = config["steps"]
    return {"steps": int(steps[p] if p in steps else steps[str(p)]), "eta": float(config["eta"]),
            "data": config["data"]}


def _e1_shard(ctx: RunContext, spec: tuple[str, float, tuple[int, ...]],
              data: str = "authors") -> dict[str, Any]:
    """One E1 shard (a value of ``p`` and a block of seeds), kept in its shard folder."""
    label, p, seeds = spec
    part = {v: k for k, v in E1_PARTS.items()}[data]
    args = _e1_run_args(e1_config(ctx.scale, data), p)
    return shard_output(ctx, part, label,
                        {"p": p, "seeds": list(seeds), "record_every": E1_RECORD_EVERY, "data": data},
                        lambda: _e1_block(p, seeds, record_every=E1_RECORD_EVERY, **args))


def _e1_merge(ctx: RunContext, outputs: list[dict[str, Any]], data: str = "authors") -> PartResult:
    seeds = _e1_seeds(ctx.scale)
    cfg = e1_config(ctx.scale, data)
    per_p = {p: [o for (_, (_, pp, _)), o in zip(_e1_plan(ctx), outputs) if pp == p] for p in E1_PS}
    return PartResult(cfg, {"seeds": list(seeds), "runs": {str(p): _e1_summary(per_p[p]) for p in E1_PS}})


def e1_conclusions(runs: dict[str, Any], *, small: float = 2e-2) -> dict[str, dict[str, Any]]:
    """What E1 concludes per MD geometry ``p``, from ``e1.json``'s ``data["runs"]`` (keys ``"1.75"``,
    ...): the median over data sets of the final divergence to each ``l_q``-SVM, the ``q`` with the
    smallest median, the fraction of data sets whose own SVM is the closest, the fraction with own
    divergence ``<= small`` (Theorem 10's scale), one minus the median top-token probability at the
    end, and the first logged step at which that median reaches 0.99 (``None`` if never)."""
    check_positive(small, "small")
    if not isinstance(runs, dict) or not runs:
        raise TypeError(f"runs must be e1.json's data['runs'] (a non-empty dict), got {type(runs).__name__}")
    out: dict[str, dict[str, Any]] = {}
    for p, r in runs.items():
        fin = {q: np.asarray(c["final"], dtype=np.float64) for q, c in r["curves"].items()}
        if p not in fin:
            raise ValueError(f"runs[{p!r}] has no curve to its own SVM (q = {p})")
        top = np.asarray(r["max_prob_median"], dtype=np.float64)
        reached = np.flatnonzero(top >= 0.99)
        out[p] = {"median": {q: float(np.median(v)) for q, v in fin.items()},
                  "closest_q": min(fin, key=lambda q: float(np.median(fin[q]))),
                  "own_closest": float(np.mean(np.all([fin[p] <= v for v in fin.values()], axis=0))),
                  "own_small": float(np.mean(fin[p] <= small)),
                  "saturation": float(1 - top[-1]),
                  "step_099": int(np.asarray(r["steps"])[reached[0]]) if reached.size else None}
    return out


def e1_conclusions_changed(a: dict[str, dict[str, Any]], b: dict[str, dict[str, Any]]) -> list[str]:
    """The E1 conclusions (of :func:`e1_conclusions`) that differ between two runs ``a`` and ``b``:
    the closest ``q``, own SVM closest on at least 90% of the data sets, own divergence small on at
    least 90%, softmax saturated; one phrase per ``p`` and conclusion that changes."""
    for name, x in (("a", a), ("b", b)):
        if not isinstance(x, dict) or not x:
            raise TypeError(f"{name} must be a non-empty result of e1_conclusions, got {type(x).__name__}")
    if set(a) != set(b):
        raise ValueError(f"a and b must cover the same p, got {sorted(a)} and {sorted(b)}")
    changed = []
    for p in a:
        for what, same in (
                ("closest q", a[p]["closest_q"] == b[p]["closest_q"]),
                ("own SVM closest for >= 90% of the data sets",
                 (a[p]["own_closest"] >= 0.9) == (b[p]["own_closest"] >= 0.9)),
                ("own D <= 2e-2 for >= 90% of the data sets",
                 (a[p]["own_small"] >= 0.9) == (b[p]["own_small"] >= 0.9)),
                ("softmax saturated (median top prob >= 0.99)",
                 (a[p]["step_099"] is None) == (b[p]["step_099"] is None))):
            if not same:
                changed.append(f"p={float(p):g}: {what}")
    return changed


# ---------------------------------------------------------------------------
# E1, one run from zero: the authors' plot of directional paths
# ---------------------------------------------------------------------------

#: the authors' "Single Result" run (``bash_scripts/run-local-*.sh``): data set of seed 1, ``W(0) = 0``
#: (``--std 0``: ``nn.init.normal_`` with standard deviation 0), the E1 horizons ``E_STEPS``
E1_SINGLE_SEED = 1
#: the two pairs of entries of ``W`` (0-based) whose path the authors' ``plotter.ipynb`` draws
E1_SINGLE_ENTRIES = ((1, 2), (3, 4))
#: iterations at which ``plotter.ipynb`` puts arrows on the path, per ``p``
E1_SINGLE_ARROWS = {1.75: (140, 225, 310, 425), 2.0: (300, 500, 700, 900), 3.0: (1500, 4000, 8000, 13000)}
#: record every this many steps (the arrows' iterations are multiples of it)
E1_SINGLE_RECORD = {1.75: 5, 2.0: 5, 3.0: 50}


def run_e1_single(p: float, *, seed: int = E1_SINGLE_SEED, steps: int | None = None,
                  record_every: int | None = None) -> dict[str, Any]:
    """One E1 run of normalized l_p-AttGD (``eta = 0.1``) from ``W(0) = 0`` on the authors' data set
    ``seed`` (``n=6, T=8, d=10``, ``v`` fixed), as the authors' single run for their plot of
    directional paths; ``p`` one of :data:`E1_PS`, ``steps`` defaults to ``E_STEPS[p]``.

    Returns the recorded ``steps`` ``(R,)``; ``path`` ``(R, 2)``, the entries
    :data:`E1_SINGLE_ENTRIES` of ``W`` at those steps; ``W_final`` ``(d, d)``; ``alpha`` ``(n,)`` (top
    token at the end); ``svm`` ``(d, d)``, the l_p-AttSVM solution for that ``alpha``; ``D`` ``(R-1,)``,
    the directional Bregman divergence ``D_psi(svm, W(k))`` at the records after step 0 (``W(0) = 0``
    has no direction); ``lp_dist`` ``||W/||W||_p - svm/||svm||_p||_p`` at the end; ``max_prob``
    ``(R,)`` (mean over samples of the top attention weight); ``stopped`` (-1: ran to the end); and
    the arrows' iterations that lie within the run."""
    from attention_theory.foundations.mirror import entrywise_lp
    from attention_theory.julistiono.mirror_descent import lp_attgd

    if (isinstance(p, bool) or not isinstance(p, (int, float, np.floating, np.integer))
            or float(p) not in E1_PS):
        raise ValueError(f"p must be one of {E1_PS}, got {p!r}")
    p = float(p)
    steps = E_STEPS[p] if steps is None else check_int(steps, "steps")
    record_every = E1_SINGLE_RECORD[p] if record_every is None else check_int(record_every, "record_every")
    ds = mj.authors_synthetic_dataset(check_seed(seed))
    tr = lp_attgd(np.zeros((10, 10)), ds["X"], ds["z"], ds["Y"], ds["v"], p=p, eta=0.1, steps=steps,
                  normalized=True, record_every=record_every)
    W = tr.iterates[-1]
    alpha = select_alpha(ds["X"], ds["z"], W)
    S = lp_att_svm(ds["X"], ds["z"], alpha, p).W
    (a, b), (c, e) = E1_SINGLE_ENTRIES
    return {"p": p, "seed": int(seed), "steps": tr.steps, "entries": [list(x) for x in E1_SINGLE_ENTRIES],
            "path": np.stack([tr.iterates[:, a, b], tr.iterates[:, c, e]], axis=1), "W_final": W,
            "alpha": alpha.tolist(), "svm": S, "D": directional_bregman(S, tr.iterates[1:], p, batch_dims=1),
            "lp_dist": float(entrywise_lp(W / entrywise_lp(W, p) - S / entrywise_lp(S, p), p)),
            "max_prob": tr.max_prob, "stopped": int(tr.stopped),
            "arrows": [k for k in E1_SINGLE_ARROWS[p] if k + record_every <= steps]}


def e1_single_config(scale: str) -> dict[str, Any]:
    """Configuration of the part ``e1-single`` (the same at every scale: seconds): the data set
    ``seed``, ``W(0) = 0``, ``eta``, ``steps`` and ``record_every`` per ``p``, the two ``entries`` of
    ``W`` drawn, the sizes and the data generator (the arguments of :func:`run_e1_singles`)."""
    _check_scale(scale)
    return {"seed": E1_SINGLE_SEED, "W0": "zero (the authors' --std 0)", "eta": 0.1, "normalized": True,
            "steps": dict(E_STEPS), "record_every": dict(E1_SINGLE_RECORD), "entries": E1_SINGLE_ENTRIES,
            "n": 6, "T": 8, "d": 10, "data": "authors", "data_generator": _E1_DATA_NOTE["authors"]}


def run_e1_singles(config: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """:func:`run_e1_single` for every ``p`` of :data:`E1_PS` at ``config`` (:func:`e1_single_config`:
    its ``seed``, ``steps`` and ``record_every`` per ``p``), keyed by ``str(p)``."""
    def at(key: str, p: float) -> int:
        return int(config[key][p] if p in config[key] else config[key][str(p)])

    return {str(p): run_e1_single(p, seed=config["seed"], steps=at("steps", p),
                                  record_every=at("record_every", p)) for p in E1_PS}


def _e1_single_part(ctx: RunContext) -> PartResult:
    """Part ``e1-single``: :func:`run_e1_singles` at :func:`e1_single_config`."""
    cfg = e1_single_config(ctx.scale)
    return PartResult(cfg, run_e1_singles(cfg))


# ---------------------------------------------------------------------------
# E2
# ---------------------------------------------------------------------------


#: E2's probability curves cover the first this many steps (the authors plot ``[:100]``)
E2_PROB_STEPS = 100


def _joint_probs(X: np.ndarray, z: np.ndarray, Y: np.ndarray, W: np.ndarray,
                 v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two probabilities of the authors' joint-training plot (``tools/train_small.py``,
    ``full_train``) at ``K`` pairs of states: ``W`` ``(K, d, d)`` picks the top token
    ``a_i = argmax_t s_it(W)`` of each sample, ``v`` ``(K, d)`` scores it. Returns ``(softmax,
    logistic)``, each ``(K,)``: the mean over samples of the top attention weight ``s_{i a_i}(W)``,
    and of ``sigmoid(Y_i x_{i a_i}^T v)``."""
    s = mj.attention(X, z, W)                                    # (K, n, T)
    a = np.argmax(s, axis=-1)                                    # (K, n); ties: first index, as torch
    top = np.take_along_axis(s, a[..., None], axis=-1)[..., 0]
    xa = X[np.arange(X.shape[0])[None, :], a]                    # (K, n, d)
    u = Y * np.einsum("knd,kd->kn", xa, v)
    return top.mean(axis=-1), (0.5 * (1.0 + np.tanh(u / 2.0))).mean(axis=-1)


def e2_config(scale: str) -> dict[str, Any]:
    """Configuration of the part ``e2`` at ``scale``: ``eta``, ``steps`` per ``p`` (at ``"smoke"`` the
    ``p = 3`` run is shortened to 2000 steps, the chapter's live run), ``normalized`` and ``init``
    (the arguments of :func:`run_e2`)."""
    steps = dict(E_STEPS) if _check_scale(scale) == "full" else {1.75: 1500, 2.0: 2000, 3.0: 2000}
    return {"eta": 0.1, "steps": steps, "normalized": True, "init": "zero"}


def run_e2(config: Mapping[str, Any], *, record_every: int = 10) -> dict[str, Any]:
    """Joint l_p-MD on ``(W, v)`` from zero on the two-sample example, per ``p``, at ``config``
    (:func:`e2_config`: ``eta``, ``steps`` per ``p`` and ``normalized``).

    Besides the recorded paths (every ``record_every`` steps: ``W_path`` ``(R, 4)`` row-major,
    ``v_path`` ``(R, 2)``), the divergences to the SVM directions and ``alpha``, each ``p`` carries the
    authors' two probability curves over the first :data:`E2_PROB_STEPS` steps (``prob_steps``
    ``(K,)``, ``k = 0..K-1``): ``softmax_prob[k]``, the mean over samples of the largest attention
    weight at ``W(k)``, and ``logistic_prob[k]``, the mean of ``sigmoid(Y_i x_{i a_i}^T v(k+1))``
    with ``a_i`` that top token of ``W(k)`` (``full_train`` takes the token from the forward pass
    of step ``k`` and ``v`` after that step); ``softmax_prob_end`` and ``logistic_prob_end`` are the
    same two means with ``W`` and ``v`` both at the last recorded step.
    """
    ex = mj.two_sample_example()
    X, z, Y = ex["X"], ex["z"], ex["Y"]
    steps = {float(k): int(v) for k, v in config["steps"].items()}
    eta, normalized = float(config["eta"]), bool(config["normalized"])
    out: dict[str, Any] = {}
    for p in E1_PS:
        tr = joint_lp_md(np.zeros((2, 2)), np.zeros(2), X, z, Y, p=p, eta=eta, steps=steps[p],
                         normalized=normalized, record_every=record_every)
        W = tr.W[-1]
        alpha = select_alpha(X, z, W)
        Wmm = lp_att_svm(X, z, alpha, p).W
        vmm = lp_v_svm(X, Y, alpha, p)
        out[str(p)] = {
            "steps": tr.steps, "W_path": tr.W.reshape(len(tr.steps), 4), "v_path": tr.v, "losses": tr.losses,
            "stopped": tr.stopped, "alpha": alpha.tolist(), "Wmm": Wmm, "vmm": vmm,
            "D_W": directional_bregman(Wmm, tr.W[1:], p, batch_dims=1),
            "D_v": directional_bregman(vmm, tr.v[1:], p, batch_dims=1),
        }
        head = joint_lp_md(np.zeros((2, 2)), np.zeros(2), X, z, Y, p=p, eta=eta,
                           steps=min(E2_PROB_STEPS, steps[p]), normalized=normalized, record_every=1)
        sfx, lgt = _joint_probs(X, z, Y, head.W[:-1], head.v[1:])
        end = _joint_probs(X, z, Y, tr.W[-1:], tr.v[-1:])
        out[str(p)].update({"prob_steps": head.steps[:-1], "softmax_prob": sfx, "logistic_prob": lgt,
                            "softmax_prob_end": float(end[0][0]), "logistic_prob_end": float(end[1][0])})
    return out


# ---------------------------------------------------------------------------
# E3 stand-in: planted sentiment tokens, the paper's attention model trained end to end by MD
# ---------------------------------------------------------------------------

E3_LR = {1.1: 1.0, 2.0: 3.0, 3.0: 0.3}

#: bins of the stand-ins' weight histograms: |entry| / max |entry| of one parameter tensor, cut into
#: this many equal bins of [0, 1] (the authors histogram |entries| of the query/key/value matrices)
_HIST_BINS = 50


def _abs_hist(w: np.ndarray) -> dict[str, Any]:
    """Histogram of the magnitudes of the entries of ``w`` relative to the largest one, on
    :data:`_HIST_BINS` equal bins of ``[0, 1]`` (the largest entry falls in the last bin), with
    the largest magnitude and the number of entries."""
    a = np.abs(np.asarray(w, dtype=np.float64)).ravel()
    top = float(a.max())
    counts, _ = np.histogram(a / top if top > 0 else a, bins=_HIST_BINS, range=(0.0, 1.0))
    return {"counts": counts.tolist(), "max_abs": top, "n": int(a.size)}


def e3_config(scale: str) -> dict[str, Any]:
    """Configuration of the part ``e3`` at ``scale`` (``"smoke"``: 150 examples and 80 steps, the
    chapter's live run; ``"full"``: 1000 and 600): ``n_train``, ``n_test``, ``steps`` and the step
    size ``lr`` per ``p`` (the arguments of :func:`run_e3_standin`)."""
    full = _check_scale(scale) == "full"
    n, steps = (1000, 600) if full else (150, 80)
    return {"standin": "planted sentiment tokens (NOT IMDb)", "n_train": n, "n_test": n, "steps": steps,
            "lr": dict(E3_LR)}


def run_e3_standin(config: Mapping[str, Any], *, seed: int = 0, emb: int = 16) -> dict[str, Any]:
    """STAND-IN for E3 (not IMDb) at ``config`` (:func:`e3_config`): ``f = v^T E_X^T softmax(E_X W
    e_0)`` on planted-sentiment sequences, embedding ``E``, ``W`` and ``v`` all trained by full-batch
    l_p-MD (logistic loss), one run per ``p`` of ``config["lr"]`` with that step size."""
    import torch

    from attention_theory.julistiono.real_data import planted_sentiment

    n_train, n_test, steps = int(config["n_train"]), int(config["n_test"]), int(config["steps"])
    lrs = {float(p): float(lr) for p, lr in config["lr"].items()}
    Xtr, ytr = planted_sentiment(n_train, seed=seed)
    Xte, yte = planted_sentiment(n_test, seed=seed + 1)
    out: dict[str, Any] = {"n_train": n_train, "n_test": n_test, "steps": steps,
                           "lr": {str(p): lr for p, lr in lrs.items()}}
    for p, lr in lrs.items():
        g = torch_generator(seed)
        E = (torch.randn(200, emb, generator=g, dtype=torch.float64) / emb ** 0.5).requires_grad_(True)
        W = (torch.randn(emb, emb, generator=g, dtype=torch.float64) / emb).requires_grad_(True)
        v = (torch.randn(emb, generator=g, dtype=torch.float64) / emb ** 0.5).requires_grad_(True)

        def forward(Xi):
            T = E[torch.as_tensor(Xi)]                      # (n, L, emb)
            h = torch.einsum("nld,de,ne->nl", T, W, T[:, 0])
            s = torch.softmax(h, dim=-1)
            return torch.einsum("nl,nld,d->n", s, T, v), s

        ysig = torch.as_tensor(2 * ytr - 1, dtype=torch.float64)
        for _ in range(steps):
            f, _ = forward(Xtr)
            loss = torch.nn.functional.softplus(-ysig * f).mean()
            for t in (E, W, v):
                t.grad = None
            loss.backward()
            torch_md_step_((E, W, v), p, lr)
        with torch.no_grad():
            fte, ste = forward(Xte)
            acc = float(((fte > 0).long().numpy() == yte).mean())
            sig = (torch.as_tensor(Xte) >= 1) & (torch.as_tensor(Xte) <= 8)
            att_signal = float((ste * sig).sum(dim=1).mean())
        out[str(p)] = {"test_accuracy": acc, "final_train_loss": float(loss.detach()),
                       "attention_on_signal": att_signal,
                       "sparsity_W": sparsity(W.detach().numpy()), "sparsity_E": sparsity(E.detach().numpy()),
                       "W": W.detach().numpy(), "hist_W": _abs_hist(W.detach().numpy()),
                       "hist_E": _abs_hist(E.detach().numpy())}
    return out


# ---------------------------------------------------------------------------
# E4 stand-in: tiny ViT on synthetic shapes, l_1.1-MD vs Adam vs GD
# ---------------------------------------------------------------------------


def e4_config(scale: str) -> dict[str, Any]:
    """Configuration of the part ``e4`` at ``scale`` (``"smoke"``: 150 examples and 80 steps, the
    chapter's live run; ``"full"``: 1000 and 600): ``n_train``, ``n_test``, ``steps`` and the step size
    ``lr`` of each optimizer (the arguments of :func:`run_e4_standin`)."""
    full = _check_scale(scale) == "full"
    n, steps = (1000, 600) if full else (150, 80)
    return {"standin": "synthetic 8x8 shapes (NOT CIFAR-10)", "n_train": n, "n_test": n, "steps": steps,
            "lr": {"md-1.1": 3e-2, "adam": 1e-2, "gd": 0.3}}


def run_e4_standin(config: Mapping[str, Any], *, seed: int = 0, dim: int = 16) -> dict[str, Any]:
    """STAND-IN for E4 (not CIFAR-10) at ``config`` (:func:`e4_config`): 8x8 synthetic shapes, 2x2
    patches (16 tokens + [CLS]), one attention layer and a linear head; l_1.1-MD, Adam and GD at the
    step sizes ``config["lr"]`` (3e-2, 1e-2, 0.3), full batch."""
    import torch

    from attention_theory.julistiono.real_data import synthetic_shapes

    n_train, n_test, steps = int(config["n_train"]), int(config["n_test"]), int(config["steps"])

    def patches(im):
        n = im.shape[0]
        return torch.as_tensor(im.reshape(n, 4, 2, 4, 2).transpose(0, 1, 3, 2, 4).reshape(n, 16, 4),
                               dtype=torch.float64)

    Xtr, ytr = synthetic_shapes(n_train, seed=seed)
    Xte, yte = synthetic_shapes(n_test, seed=seed + 1)
    Ptr, Pte = patches(Xtr), patches(Xte)
    ytr_t = torch.as_tensor(ytr)
    out: dict[str, Any] = {"n_train": n_train, "n_test": n_test, "steps": steps}
    for name, lr in config["lr"].items():
        g = torch_generator(seed)
        prm = {
            "emb": torch.randn(4, dim, generator=g, dtype=torch.float64) / 2,
            "pos": torch.randn(17, dim, generator=g, dtype=torch.float64) / dim ** 0.5,
            "cls": torch.randn(dim, generator=g, dtype=torch.float64) / dim ** 0.5,
            "W": torch.randn(dim, dim, generator=g, dtype=torch.float64) / dim,
            "V": torch.randn(dim, dim, generator=g, dtype=torch.float64) / dim ** 0.5,
            "head": torch.randn(dim, 4, generator=g, dtype=torch.float64) / dim ** 0.5,
        }
        for t in prm.values():
            t.requires_grad_(True)
        opt = torch.optim.Adam(prm.values(), lr=lr) if name == "adam" else None

        def forward(P):
            tok = torch.cat([prm["cls"].expand(P.shape[0], 1, dim), P @ prm["emb"]], dim=1) + prm["pos"]
            h = torch.einsum("ntd,de,ne->nt", tok, prm["W"], tok[:, 0])
            s = torch.softmax(h, dim=-1)
            return (torch.einsum("nt,ntd->nd", s, tok) @ prm["V"]) @ prm["head"]

        for _ in range(steps):
            loss = torch.nn.functional.cross_entropy(forward(Ptr), ytr_t)
            for t in prm.values():
                t.grad = None
            loss.backward()
            if opt is not None:
                opt.step()
            elif name == "gd":
                with torch.no_grad():
                    for t in prm.values():
                        t -= lr * t.grad
            else:
                torch_md_step_(prm.values(), 1.1, lr)
        with torch.no_grad():
            acc = float((forward(Pte).argmax(dim=1).numpy() == yte).mean())
        allw = np.concatenate([t.detach().numpy().ravel() for t in prm.values()])
        out[name] = {"test_accuracy": acc, "final_train_loss": float(loss.detach()),
                     "sparsity_all": sparsity(allw),
                     "sparsity_W": sparsity(prm["W"].detach().numpy()),
                     "hist_W": _abs_hist(prm["W"].detach().numpy()),
                     "hist_V": _abs_hist(prm["V"].detach().numpy())}
    return out


# ---------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------


def _run_part(config: Callable[[str], dict[str, Any]], run: str):
    """A part's ``run(ctx)``: the entry point named ``run`` (looked up in this module when the part
    runs) at ``config(ctx.scale)``, recorded as the part's configuration."""
    def part(ctx: RunContext) -> PartResult:
        cfg = config(ctx.scale)
        return PartResult(cfg, globals()[run](cfg))

    return part


_FILES = {"e1": "e1", "e1-book-v1": "e1-book-v1", "e1-single": "e1-single", "e2": "e2", "e3": "e3_standin",
          "e4": "e4_standin"}


def _filename(stem: str) -> Callable[[str], str]:
    return lambda scale: f"{stem}.json" if scale == "full" else f"{stem}-smoke.json"


EXPERIMENT = Experiment(
    paper="julistiono", name="mirror-descent-training",
    description="Julistiono et al.: l_p-AttGD experiments E1-E4 (E3/E4 on offline stand-ins).",
    results="julistiono-mirror-descent-training",
    parts=(Part("e1", None, "convergence in direction to the l_p-AttSVM, on the authors' data sets (shards: "
                "a value of p and a block of seeds each)", filename=_filename(_FILES["e1"]),
                shards=Shards(_e1_plan, _e1_shard, _e1_merge), config=e1_config),
           Part("e1-book-v1", None, "E1 on the book's earlier data sets (not run by default; for comparison)",
                filename=_filename(_FILES["e1-book-v1"]),
                shards=Shards(_e1_plan, functools.partial(_e1_shard, data="book-v1"),
                              functools.partial(_e1_merge, data="book-v1")), config=e1_book_v1_config),
           Part("e1-single", _e1_single_part, "one run per p from W(0) = 0 on the data set of seed 1 (the "
                "authors' plot of directional paths)", filename=_filename(_FILES["e1-single"]),
                config=e1_single_config),
           Part("e2", _run_part(e2_config, "run_e2"), "norm growth and direction, joint (v, W)",
                filename=_filename(_FILES["e2"]), config=e2_config),
           Part("e3", _run_part(e3_config, "run_e3_standin"), "stand-in for IMDb",
                filename=_filename(_FILES["e3"]), config=e3_config),
           Part("e4", _run_part(e4_config, "run_e4_standin"), "stand-in for the ViT on CIFAR-10",
                filename=_filename(_FILES["e4"]), config=e4_config)),
    default_parts=("e1", "e1-single", "e2", "e3", "e4"),
)
