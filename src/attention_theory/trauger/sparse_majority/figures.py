"""Figures of the sparse-majority chapter (``book/trauger/sparse-majority.md``).

Small functions that draw on a given matplotlib ``Axes`` and return it, so the chapter composes
them into numbered figures.  Every per-``T`` plot shows the individual runs (grey) and the
quantity the paper plots, the maximum over the seeds (blue).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from attention_theory._validate import check_mapping
from attention_theory.trauger._args import check_sequence

__all__ = ["per_seed", "plot_per_seed", "plot_curves", "plot_bound", "plot_interval_by_seeds"]


def per_seed(runs: Sequence[Mapping[str, Any]], key: str) -> tuple[list[int], list[list[float]]]:
    """The lengths ``Ts`` (sorted) and, for each, the values of ``key`` over its runs."""
    if not isinstance(key, str):
        raise TypeError(f"key must be the name of a run quantity (a string), got {key!r}")
    check_sequence(runs, "runs")
    for i, r in enumerate(runs):
        check_mapping(r, f"runs[{i}]", ("T",))
        if key not in r:
            raise ValueError(f"key {key!r} is not a quantity of runs[{i}] (it has {sorted(r)})")
    Ts = sorted({int(r["T"]) for r in runs})
    return Ts, [[float(r[key]) for r in runs if int(r["T"]) == T] for T in Ts]


def plot_per_seed(ax: Any, runs: Sequence[Mapping[str, Any]], key: str, *, ylabel: str, title: str,
                  best: str = "max", paper_seeds: Sequence[int] | None = None) -> Any:
    """Runs of ``key`` against ``T`` (grey dots) and their ``best`` (``"max"``: the paper's
    statistic) over seeds (blue line).  With ``paper_seeds``, the runs of the other seeds are drawn
    as open circles and the ``best`` over ``paper_seeds`` alone as a dashed orange line."""
    if best not in ("max", "min"):
        raise ValueError(f"best must be 'max' or 'min', got {best!r}")
    pick = max if best == "max" else min
    Ts, vals = per_seed(runs, key)
    paper = None if paper_seeds is None else {int(s) for s in check_sequence(paper_seeds, "paper_seeds")}
    for T in Ts:
        rs = [r for r in runs if int(r["T"]) == T]
        inside = [float(r[key]) for r in rs if paper is None or int(r["seed"]) in paper]
        ax.scatter([T] * len(inside), inside, s=12, color="0.55", alpha=0.8, zorder=2,
                   label=("one run" if paper is None else "one run, the paper's seeds") if T == Ts[0] else None)
        if paper is not None:
            other = [float(r[key]) for r in rs if int(r["seed"]) not in paper]
            ax.scatter([T] * len(other), other, s=14, facecolors="none", edgecolors="0.35", zorder=2,
                       label="one run, added seeds" if T == Ts[0] else None)
    n_seeds = len({int(r["seed"]) for r in runs})
    ax.plot(Ts, [pick(v) for v in vals], "o-", color="tab:blue", zorder=3,
            label=f"{best} over {'seeds' if paper is None else f'all {n_seeds} seeds'}")
    if paper is not None:
        sub = [pick(float(r[key]) for r in runs if int(r["T"]) == T and int(r["seed"]) in paper) for T in Ts]
        ax.plot(Ts, sub, "s--", color="tab:orange", zorder=3, ms=4, label=f"{best} over the paper's {len(paper)} seeds")
    ax.set(xlabel="sequence length T", ylabel=ylabel, title=title)
    ax.legend(fontsize=9)
    return ax


def plot_interval_by_seeds(ax: Any, counts: Sequence[int], estimates: Sequence[Any], *, margin: float,
                           label: str, colour: str = "tab:blue", offset: float = 0.0) -> Any:
    """The bootstrap interval (bar) and estimate (dot) of a change per doubling of ``T`` against the
    number of seeds it uses (``estimates`` from :func:`~.evaluation.slopes_by_seed_count`), with the
    equivalence band ``[-margin, margin]`` shaded; ``offset`` shifts the bars sideways so that two
    statistics can share the axes."""
    check_sequence(counts, "counts")
    check_sequence(estimates, "estimates")
    if len(counts) != len(estimates):
        raise ValueError(f"counts and estimates must have the same length, got {len(counts)} and {len(estimates)}")
    x = [float(k) + offset for k in counts]
    lo = [e.slope - e.low for e in estimates]
    hi = [e.high - e.slope for e in estimates]
    ax.errorbar(x, [e.slope for e in estimates], yerr=[lo, hi], fmt="o", color=colour, capsize=3, label=label)
    ax.axhspan(-margin, margin, color="tab:green", alpha=0.12, lw=0)
    ax.axhline(0.0, color="0.5", lw=0.8)
    ax.set_xticks([int(k) for k in counts])
    ax.set_xlim(min(counts) - 0.6, max(counts) + 0.6)
    ax.set(xlabel="seeds per length", ylabel="change per doubling of T")
    return ax


def plot_curves(ax: Any, curves: Mapping[str, Mapping[str, Sequence[float]]], key: str, *,
                ylabel: str, title: str, Ts: Sequence[int] | None = None) -> Any:
    """Evaluation curves ``key`` against the epoch, one colour per ``T`` (every seed drawn);
    ``curves`` as in :func:`~.collect.collect_authors_sweep` (``"T/seed" -> {"epoch", key}``)."""
    import matplotlib.pyplot as plt

    keys = sorted(curves, key=lambda s: tuple(int(x) for x in s.split("/")))
    all_T = sorted({int(k.split("/")[0]) for k in keys})
    Ts = all_T if Ts is None else [int(T) for T in Ts]
    cmap = plt.get_cmap("viridis")
    labelled: set[int] = set()
    for k in keys:
        T = int(k.split("/")[0])
        if T not in Ts:
            continue
        c = curves[k]
        col = cmap(Ts.index(T) / max(1, len(Ts) - 1))
        ax.plot(c["epoch"], c[key], color=col, lw=0.9, alpha=0.8, label=None if T in labelled else f"T={T}")
        labelled.add(T)
    ax.set(xlabel="epoch", ylabel=ylabel, title=title)
    ax.legend(fontsize=9, ncol=2)
    return ax


def plot_bound(ax: Any, rows: Sequence[Mapping[str, Any]], runs: Sequence[Mapping[str, Any]]) -> Any:
    """The Cor. 4.1.1 gap bound of every run (:func:`~.theory.bound_per_run`) and the trivial
    bound (the loss range) against ``T``, on a log axis, with the largest measured gap per ``T``
    (all strictly positive on a log axis: measured gaps at or below zero are drawn at the axis'
    bottom as open markers)."""
    Ts = sorted({int(r["T"]) for r in rows})
    for name, key, colour in (("Cor. 4.1.1 bound", "gap_bound", "tab:red"),
                              ("loss range (trivial bound)", "trivial_gap_bound", "tab:orange")):
        vals = [[float(r[key]) for r in rows if int(r["T"]) == T] for T in Ts]
        for T, v in zip(Ts, vals):
            ax.scatter([T] * len(v), v, s=10, color=colour, alpha=0.5)
        ax.plot(Ts, [max(v) for v in vals], "o-", color=colour, label=f"{name}, max over seeds")
    gaps = [max(float(r["gen_gap"]) for r in runs if int(r["T"]) == T) for T in Ts]
    floor = min(min(float(r["gap_bound"]) for r in rows), 1e-4) / 10
    pos = [(T, g) for T, g in zip(Ts, gaps) if g > 0]
    nonpos = [T for T, g in zip(Ts, gaps) if g <= 0]
    if pos:
        ax.plot(*zip(*pos), "s-", color="tab:blue", label="measured gap, max over seeds")
    if nonpos:
        ax.scatter(nonpos, [floor] * len(nonpos), marker="s", facecolors="none", edgecolors="tab:blue",
                   label="measured gap <= 0")
    ax.set_yscale("log")
    ax.set(xlabel="sequence length T", ylabel="generalization gap (nats)",
           title="Cor. 4.1.1 on the trained weights")
    ax.legend(fontsize=9)
    return ax

