"""Figures and tables of the sparse-majority chapter (``book/trauger/sparse-majority.md``).

Small functions that draw on a given matplotlib ``Axes`` and return it, so the chapter composes
them into numbered figures; every per-``T`` plot shows the individual runs (grey) and the
quantity the paper plots, the maximum over the seeds (blue).  Beside them, the chapter's tables
and summaries of committed results (the protocol table, the benchmark, the bound per length), the
three-panel figure of a whole sweep, and :func:`trend_test`, which evaluates a figure's check on
committed sweep files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from attention_theory import verify
from attention_theory.trauger._args import check_sequence
from attention_theory.trauger.sparse_majority import authors_model
from attention_theory.trauger.sparse_majority.protocol import protocol
from attention_theory.validation import check_mapping

__all__ = ["per_seed", "plot_per_seed", "plot_curves", "plot_bound", "plot_interval_by_seeds",
           "per_seed_figure", "sweep_figure", "protocol_markdown", "benchmark_summary", "bound_table",
           "trend_test", "initial_weight_l1"]


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
        first = "one run" if paper is None else "one run, the paper's seeds"
        ax.scatter([T] * len(inside), inside, s=12, color="0.55", alpha=0.8, zorder=2,
                   label=first if T == Ts[0] else None)
        if paper is not None:
            other = [float(r[key]) for r in rs if int(r["seed"]) not in paper]
            ax.scatter([T] * len(other), other, s=14, facecolors="none", edgecolors="0.35", zorder=2,
                       label="one run, added seeds" if T == Ts[0] else None)
    n_seeds = len({int(r["seed"]) for r in runs})
    ax.plot(Ts, [pick(v) for v in vals], "o-", color="tab:blue", zorder=3,
            label=f"{best} over {'seeds' if paper is None else f'all {n_seeds} seeds'}")
    if paper is not None:
        sub = [pick(float(r[key]) for r in runs if int(r["T"]) == T and int(r["seed"]) in paper) for T in Ts]
        ax.plot(Ts, sub, "s--", color="tab:orange", zorder=3, ms=4,
                label=f"{best} over the paper's {len(paper)} seeds")
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
        raise ValueError(f"counts and estimates must have the same length, got {len(counts)} and "
                         f"{len(estimates)}")
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


def per_seed_figure(runs: Sequence[Mapping[str, Any]], key: str, *, ylabel: str, title: str,
                    paper_seeds: Sequence[int] | None = None) -> Any:
    """A new ``6 x 3.6`` inch figure of :func:`plot_per_seed` (``runs``: one record per
    ``(T, seed)`` run with ``key``), laid out tight; the chapter glues and closes it (Figures 1-3
    of ``book/trauger/sparse-majority.md``)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.6))
    plot_per_seed(ax, runs, key, ylabel=ylabel, title=title, paper_seeds=paper_seeds)
    plt.tight_layout()
    return fig


#: The three quantities of Figures 1-3 and their axis labels.
_FIGURES_1_TO_3 = (("weight_l1", r"$\sum|w|$"), ("gen_gap", "validation - training CE"),
                   ("val_acc", "validation accuracy"))


def sweep_figure(runs: Sequence[Mapping[str, Any]]) -> Any:
    """A new ``6 x 9.5`` inch figure with the three panels of Figures 1-3 (weight l1 norm, gap,
    validation accuracy; :func:`plot_per_seed` each) of one sweep's ``runs``, laid out tight: the
    first protocol's sweep in ``book/trauger/sparse-majority.md``."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=(6, 9.5))
    for ax, (key, ylabel) in zip(axes, _FIGURES_1_TO_3):
        plot_per_seed(ax, runs, key, ylabel=ylabel, title="")
    plt.tight_layout()
    return fig


_PROTOCOL_COLUMNS = ("setting", "paper", "authors_code", "book", "book_v1", "departure")


def protocol_markdown(rows: Sequence[Mapping[str, Any]]) -> str:
    """The chapter's protocol table as Markdown: one row per setting of
    :func:`~.protocol.protocol_table` (columns paper, authors' code, this book, first protocol,
    departure; a departure is marked ``✱``), with ``|``, ``*`` and ``_`` escaped."""
    check_sequence(rows, "rows")
    for i, r in enumerate(rows):
        check_mapping(r, f"rows[{i}]", _PROTOCOL_COLUMNS)

    def esc(s: Any) -> str:
        return str(s).replace("|", r"\|").replace("*", r"\*").replace("_", r"\_")

    head = ("| setting | paper | authors' code | this book | first protocol | departure |\n"
            "|---|---|---|---|---|---|\n")
    body = "".join(f"| {'✱ ' if r['departure'] else ''}{esc(r['setting'])} | {esc(r['paper'])} | "
                   f"{esc(r['authors_code'])} | {esc(r['book'])} | {esc(r['book_v1'])} | "
                   f"{esc(r['departure'])} |\n" for r in rows)
    return head + body


def benchmark_summary(data: Mapping[str, Any]) -> dict[str, Any]:
    """What the chapter shows of the benchmark result ``data`` (the body of
    ``benchmark-structured.json``, :func:`~.benchmark.benchmark_trainers`): ``table`` (Markdown:
    optimizer steps per CPU-second of each trainer, median and range), ``lines`` (the speed-ups,
    the work per step, the throughput, the fraction of the limit and the load average, as printed)
    and ``glue`` (the numbers the prose of ``book/trauger/sparse-majority.md`` cites, by name)."""
    check_mapping(data, "data", ("trainers", "speedup", "throughput", "flops", "fraction_exceeds_one",
                                 "load_average"))
    b = data
    rate = {k: b["trainers"][k]["steps_per_cpu_s"] for k in ("naive", "batched", "structured")}
    rows = [f"| {k} | {v['median']:,.1f} | {v['min']:,.1f} to {v['max']:,.1f} |" for k, v in rate.items()]
    sp = {k: b["speedup"][k]["cpu"] for k in ("structured_over_naive", "structured_over_batched")}
    thr, fl = b["throughput"], b["flops"]
    frac = thr["fraction_of_limit"]["cpu"]
    table = "\n".join(["| trainer | optimizer steps per CPU-second (median) | range over the repetitions |",
                       "|---|---|---|", *rows])
    naive, batched = sp["structured_over_naive"], sp["structured_over_batched"]
    lines = [
        f"structured / naive: {naive['median']:.0f}x ({naive['min']:.0f} to {naive['max']:.0f}); "
        f"structured / batched: {batched['median']:.2f}x ({batched['min']:.2f} to {batched['max']:.2f})",
        f"work: {fl['issued_per_step'] / 1e6:.2f} MFLOP of matrix products per step of one run, "
        f"{fl['products_per_epoch']:,d} product calls per epoch of all runs",
        f"trainer: {thr['achieved_gflops']['cpu']['median']:.1f} GFLOP per CPU-second; its products alone: "
        f"{thr['limit_gflops']['cpu']['median']:.1f}; one-thread sgemm peak (2048^3): "
        f"{thr['sgemm_peak']['gflops']:.1f}",
        f"fraction of the limit (products' time / trainer's time, per repetition): median "
        f"{frac['median']:.2f}, range {frac['min']:.2f} to {frac['max']:.2f}; exceeds 1: "
        f"{b['fraction_exceeds_one']}",
        f"load average before / after: {b['load_average']['before'][0]:.2f} / "
        f"{b['load_average']['after'][0]:.2f}"]
    glue = {"sm_speedup_naive": naive["median"], "sm_speedup_batched": batched["median"],
            "sm_fraction_limit": frac["median"],
            "sm_fraction_peak": thr["achieved_fraction_of_peak"]["cpu"]["median"],
            "sm_steps_cpu": rate["structured"]["median"]}
    return {"table": table, "lines": lines, "glue": glue}


def bound_table(rows: Sequence[Mapping[str, Any]], runs: Sequence[Mapping[str, Any]]) -> str:
    """Per length ``T``: the largest norms of Cor. 4.1.1 and bound on the gap over the seeds
    (``rows`` of :func:`~.theory.bound_per_run`) beside the largest measured gap (``runs``), as
    the fixed-width text table of ``book/trauger/sparse-majority.md``."""
    check_sequence(rows, "rows")
    check_sequence(runs, "runs")
    for i, r in enumerate(rows):
        check_mapping(r, f"rows[{i}]", ("T", "B_w", "B_Wc", "B_Wv", "B_QK", "B_x", "gap_bound"))
    for i, r in enumerate(runs):
        check_mapping(r, f"runs[{i}]", ("T", "gen_gap"))
    out = ["  T   B_w    B_Wc    B_Wv     B_QK    B_x   bound on the gap   measured gap   (max over seeds)"]
    for T in sorted({r["T"] for r in rows}):
        rs = [r for r in rows if r["T"] == T]
        g = max(r["gen_gap"] for r in runs if r["T"] == T)

        def mx(k: str) -> float:
            return max(r[k] for r in rs)

        out.append(f"{T:>3} {mx('B_w'):6.2f} {mx('B_Wc'):6.2f} {mx('B_Wv'):7.2f} {mx('B_QK'):8.2f} "
                   f"{mx('B_x'):6.3f} {mx('gap_bound'):15.3g} {g:14.4f}")
    return "\n".join(out)


def trend_test(run_check: Callable[[], Any], name: str, *, files: Sequence[str | Path],
               what: str = "the paper's 5 seeds") -> bool:
    """Evaluate a figure statement of ``book/trauger/sparse-majority.md`` on committed sweep
    ``files``: ``run_check()`` runs the registered check inside
    :func:`~attention_theory.verify.on_results` (the record carries scale "full", the files and
    their commits; a statement that fails is recorded as failing there).  Prints one line
    (``name``, ``what``, HOLDS/FAILS and the summary) and returns whether it holds."""
    if not callable(run_check):
        raise TypeError(f"run_check must be callable, got {type(run_check).__name__}")
    check_sequence(files, "files")
    with verify.on_results(*files):
        holds, summary = verify.evaluate(run_check)
    print(f"{name} ({what}): {'HOLDS' if holds else 'FAILS'}:", summary)
    return holds


def initial_weight_l1(T: int, seed: int) -> float:
    """The sum of absolute weights of run ``(T, seed)`` at initialization under the authors'
    protocol (its ``"init"`` generator, float32 as in training): the starting point of the weight
    norms in "What the sweep says" of ``book/trauger/sparse-majority.md``."""
    shape = protocol("authors", "full").model_shape
    gen = authors_model.run_generator(T, seed, "init")
    return float(authors_model.init_authors_params(shape, generator=gen).abs().sum())
