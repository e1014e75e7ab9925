"""Figures of the sparse-majority chapter (``book/trauger/sparse-majority.md``).

Small functions that draw on a given matplotlib ``Axes`` and return it, so the chapter composes
them into numbered figures.  Every per-``T`` plot shows the individual runs (grey) and the
quantity the paper plots, the maximum over the seeds (blue).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from attention_theory._validate import check_mapping
from attention_theory.trauger._args import check_sequence

__all__ = ["per_seed", "plot_per_seed", "plot_curves", "plot_bound"]


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
                  best: str = "max") -> Any:
    """Runs of ``key`` against ``T`` (grey dots) and their ``best`` (``"max"``: the paper's
    statistic) over seeds (blue line)."""
    if best not in ("max", "min"):
        raise ValueError(f"best must be 'max' or 'min', got {best!r}")
    Ts, vals = per_seed(runs, key)
    for T, v in zip(Ts, vals):
        ax.scatter([T] * len(v), v, s=12, color="0.55", alpha=0.8, zorder=2,
                   label="one run" if T == Ts[0] else None)
    stat = [max(v) if best == "max" else min(v) for v in vals]
    ax.plot(Ts, stat, "o-", color="tab:blue", zorder=3, label=f"{best} over seeds")
    ax.set(xlabel="sequence length T", ylabel=ylabel, title=title)
    ax.legend(fontsize=9)
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

