"""Figures and tables of the chapter ``book/julistiono/experiments.md`` (experiment
``mirror-descent-training``, :mod:`attention_theory.julistiono.mirror_descent_training`).

Each ``plot_*`` function draws one numbered figure of the chapter from a result's ``data`` (read
from ``results/julistiono-mirror-descent-training/`` or computed live) and returns the matplotlib
figure, with the lines of the table printed beside it where the chapter prints one; the ``*_lines``
functions return the lines of a printed table.  Keys such as ``"1.75"`` are the JSON form of the
values of ``p``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from attention_theory.results import describe_provenance, read_result, repo_results_dir
from attention_theory.validation import as_vector, check_mapping, refuses_overflow

__all__ = ["RESULTS_FOLDER", "full_result", "plot_e1_curves", "e1_final_lines", "e1_comparison_lines",
           "SINGLE_VIEW", "plot_e1_single", "plot_implicit_bias", "plot_e2", "JOINT_VIEW", "JOINT_ARROWS",
           "rescaled", "plot_e2_joint", "standin_lines", "stairs", "has_histograms",
           "plot_weight_histograms"]

#: the folder of the experiment's committed results, under ``results/``
RESULTS_FOLDER = "julistiono-mirror-descent-training"
#: the authors' axis limits of the single-run plot (``plotter.ipynb``), per ``p``: (x limits, y limits)
SINGLE_VIEW = {"1.75": ((-6, 1), (-3.5, 3.5)), "2.0": ((-7, 1), (-4, 4)), "3.0": ((-7, 1), (-4, 4))}
#: the authors' axis limits of the joint-training paths (``plotter.ipynb``), per ``p``
JOINT_VIEW = {"1.75": ((-5.5, 5.5), (-1, 10)), "2.0": ((-5, 5.5), (-1.5, 9)), "3.0": ((-8, 2), (-2, 8))}
#: the iterations the authors' notebook marks with arrows on the joint paths, per ``p``: (W arrows,
#: v arrows)
JOINT_ARROWS = {"1.75": ((20, 30, 38), (15, 35, 50)), "2.0": ((20, 40, 60), (25, 50, 75)),
                "3.0": ((15, 60, 130), (50, 175, 400))}
_PS = ("1.75", "2.0", "3.0")


def _pyplot() -> Any:
    import matplotlib.pyplot as plt

    return plt


def full_result(name: str, folder: str | Path | None = None) -> dict[str, Any] | None:
    """The committed full-scale result file ``name`` (e.g. ``"e1.json"``) of ``folder`` (default: the
    experiment's folder :data:`RESULTS_FOLDER` of the repository), read with its provenance, which is
    printed; ``None``, with a printed note, when the file is not in this checkout."""
    if not isinstance(name, str) or not name or "/" in name:
        raise ValueError(f"name must be the name of a file in the results folder, got {name!r}")
    f = (repo_results_dir(RESULTS_FOLDER) if folder is None else Path(folder)) / name
    if not f.exists():
        print(f"(full-scale result {f} not available in this checkout)")
        return None
    res = read_result(f)
    print("Full-scale result:", describe_provenance(res["provenance"]))
    return res


def plot_e1_curves(runs: Mapping[str, Any], n_seeds: int) -> Any:
    """Figure 4 at full scale (chapter figure ``fig-jexp-e1-full``): one panel per MD ``p`` of E1's
    ``runs`` (``data["runs"]`` of ``e1.json``), the median and quartile band over the ``n_seeds`` data
    sets of the directional Bregman divergence to each ``l_q``-SVM against the iteration (log axis);
    the fourth panel holds the legend."""
    plt = _pyplot()
    fig, axs = plt.subplots(2, 2, figsize=(7.2, 6))
    axs = axs.ravel()
    for ax, p in zip(axs, _PS):
        st = np.asarray(runs[p]["steps"])
        for q, c in runs[p]["curves"].items():
            ax.semilogy(st, c["median"], label=f"SVM q={float(q):g}")
            ax.fill_between(st, c["q25"], c["q75"], alpha=.2)
        ax.set_title(rf"$\ell_{{{float(p):g}}}$-MD, {n_seeds} seeds", fontsize=10)
        ax.set_xlabel("iteration")
        ax.set_ylabel(r"$D_\psi(\hat W^{mm}_q,\hat W(k))$")
    axs[3].legend(*axs[0].get_legend_handles_labels(), loc="center", fontsize=9)
    axs[3].axis("off")
    plt.tight_layout()
    return fig


def e1_final_lines(runs: Mapping[str, Any]) -> list[str]:
    """The table of E1's final divergences: per MD ``p``, the median over the data sets of the final
    divergence to each ``l_q``-SVM and the fraction of data sets whose own ``q = p`` is the closest."""
    check_mapping(runs, "runs", _PS)
    lines = ["   MD p | median final D to SVM q=1.75, 2, 3 | fraction with own q closest"]
    for p in _PS:
        finals = {q: np.asarray(c["final"]) for q, c in runs[p]["curves"].items()}
        own = finals[p]
        closest = np.mean([all(own[i] <= finals[q][i] for q in finals) for i in range(len(own))])
        lines.append(f"  {float(p):5.2f} | " + ", ".join(f"{np.median(v):.2e}" for v in finals.values())
                     + f" | {closest:.2f}")
    return lines


def e1_comparison_lines(cmp: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The table comparing E1's conclusions on two draws of the data sets: ``cmp`` maps a label
    (``"authors"``, ``"book-v1"``) to the result of
    :func:`~attention_theory.julistiono.mirror_descent_training.e1_conclusions`."""
    check_mapping(cmp, "cmp")
    for name, s in cmp.items():
        check_mapping(s, f"cmp[{name!r}]", _PS)
    lines = [f"{'MD p':>5} {'data':>8} | median final D to q = 1.75, 2, 3 | closest q | own closest"
             f" | own D <= 2e-2 | 1 - top prob | step to 0.99"]
    for p in _PS:
        for name, s in cmp.items():
            r = s[p]
            lines.append(f"{float(p):5.2f} {name:>8} | " + ", ".join(f"{v:.2e}" for v in r["median"].values())
                         + f"       | {float(r['closest_q']):9g} | {r['own_closest']:11.2f} | "
                         f"{r['own_small']:13.2f} | {r['saturation']:12.1e} | {r['step_099']}")
    return lines


def plot_e1_single(one_run: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """The authors' single-run plot (chapter figure ``fig-jexp-e1-single``) from ``one_run``
    (``data`` of ``e1-single.json`` or :func:`~attention_theory.julistiono.mirror_descent_training.
    run_e1_singles`): per ``p`` the path of two entries of ``W`` with arrows and the ``l_p``-AttSVM
    direction rescaled to the path's last point, in the authors' view :data:`SINGLE_VIEW`.  Returns
    the figure and the table lines (``alpha``, final divergence, ``l_p`` distance, angle)."""
    plt = _pyplot()
    fig, axs = plt.subplots(1, 3, figsize=(7.2, 2.9))
    lines = ["   p | alpha (top token per sample) | final D to own SVM | l_p distance of the unit matrices"
             " | angle between last path point and SVM pair (deg)"]
    for ax, (p, r) in zip(axs, one_run.items()):
        st, path = np.asarray(r["steps"]), np.asarray(r["path"])
        (a, b), (c, d) = r["entries"]
        S = np.asarray(r["svm"])
        s2 = np.array([S[a][b], S[c][d]])
        s2 = s2 * np.linalg.norm(path[-1]) / np.linalg.norm(s2)
        ax.plot(path[:, 0], path[:, 1], color="C0", lw=1.5, label=rf"$\ell_{{{float(p):g}}}$-AttGD")
        ax.plot([0, s2[0]], [0, s2[1]], color="C1", lw=1.5, label=rf"$\ell_{{{float(p):g}}}$-AttSVM")
        for k in r["arrows"]:
            j = int(np.searchsorted(st, k))
            ax.annotate("", xy=path[j + 1], xytext=path[j],
                        arrowprops=dict(arrowstyle="-|>", color="C0", lw=1))
        ax.set_xlim(*SINGLE_VIEW[p][0])
        ax.set_ylim(*SINGLE_VIEW[p][1])
        ax.grid(alpha=.4)
        ax.set_xlabel(f"$W_{{{a + 1}{b + 1}}}$")
        ax.set_ylabel(f"$W_{{{c + 1}{d + 1}}}$")
        ax.set_title(f"p = {float(p):g}, {int(st[-1])} steps", fontsize=9)
        ax.legend(fontsize=7, loc="lower left")
        cos = s2 @ path[-1] / np.linalg.norm(s2) / np.linalg.norm(path[-1])
        ang = np.degrees(np.arccos(np.clip(cos, -1, 1)))
        lines.append(f"{float(p):4g} | {r['alpha']} | {r['D'][-1]:.1e} | {r['lp_dist']:.3f} | {ang:.1f}")
    plt.tight_layout()
    return fig, lines


def plot_implicit_bias(one: Mapping[float, Mapping[str, Any]]) -> Any:
    """The learned key-query matrices of one data set against their ``l_p``-AttSVM solutions (chapter
    figure ``fig-jexp-implicit-bias``): ``one[p]`` an E1 run of one data set
    (:func:`~attention_theory.julistiono.mirror_descent_training.run_e1_seeds`), ``|entry| / max
    |entry|`` of ``final[0]`` (top row) and ``svm[p][0]`` (bottom row), one column per ``p``."""
    from attention_theory.julistiono.mirror_descent_training import sparsity

    plt = _pyplot()
    fig, axs = plt.subplots(2, 3, figsize=(7.2, 5.2))
    im = None
    for j, (p, r) in enumerate(one.items()):
        panels = ((r["final"][0], f"learned W, p={p:g}"), (r["svm"][p][0], rf"$\ell_{{{p:g}}}$-AttSVM"))
        for i, (M, lab) in enumerate(panels):
            A = np.abs(M) / np.abs(M).max()
            im = axs[i, j].imshow(A, cmap="viridis", vmin=0, vmax=1)
            axs[i, j].set_title(f"{lab}\n{sparsity(M):.0%} entries < 1%", fontsize=9)
            axs[i, j].set_xticks([])
            axs[i, j].set_yticks([])
    fig.colorbar(im, ax=axs, shrink=0.7, label="|entry| / max |entry|")
    return fig


def plot_e2(e2: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """E2's paths and divergences (chapter figure ``fig-jexp-e2-smoke``) from ``e2`` (the result of
    :func:`~attention_theory.julistiono.mirror_descent_training.run_e2`): the paths of
    ``(W_11, W_12)`` and ``(v_1, v_2)`` and the divergences to ``W^mm`` and ``v^mm`` (log-log), one
    colour per ``p``.  Returns the figure and one line per ``p``."""
    from matplotlib.lines import Line2D

    plt = _pyplot()
    fig, axs = plt.subplots(2, 2, figsize=(7.2, 6))
    axs = axs.ravel()
    lines = []
    for c, (p, r) in enumerate(e2.items()):
        Wp, vp = np.asarray(r["W_path"]), np.asarray(r["v_path"])
        axs[0].plot(Wp[:, 0], Wp[:, 1], color=f"C{c}")
        axs[1].plot(vp[:, 0], vp[:, 1], color=f"C{c}")
        axs[2].loglog(np.asarray(r["steps"])[1:], r["D_W"], color=f"C{c}")
        axs[2].loglog(np.asarray(r["steps"])[1:], r["D_v"], "--", color=f"C{c}")
        lines.append(f"p={float(p):g}: alpha={r['alpha']}, final D(W^mm)={r['D_W'][-1]:.2e}, "
                     f"D(v^mm)={r['D_v'][-1]:.2e}, stopped at step {r['stopped']} (-1: ran to the end)")
    axs[0].set_xlabel("$W_{11}$")
    axs[0].set_ylabel("$W_{12}$")
    axs[1].set_xlabel("$v_1$")
    axs[1].set_ylabel("$v_2$")
    axs[2].set_xlabel("iteration")
    axs[2].set_ylabel("directional Bregman div.")
    axs[3].legend(handles=[Line2D([], [], color=f"C{c}", label=f"p={float(p):g}") for c, p in enumerate(e2)]
                  + [Line2D([], [], color="k", label=r"$W$ (divergence to $W^{mm}$)"),
                     Line2D([], [], color="k", ls="--", label=r"$v$ (divergence to $v^{mm}$)")],
                  loc="center", fontsize=9)
    axs[3].axis("off")
    plt.tight_layout()
    return fig, lines


@refuses_overflow
def rescaled(target: Sequence[float], last: Sequence[float]) -> np.ndarray:
    """``target`` (a nonzero vector) rescaled to the Euclidean length of ``last`` (a path's last point,
    a vector): an SVM direction drawn from the origin to the length of the path."""
    target, last = as_vector(target, "target"), as_vector(last, "last")
    if not np.any(target):
        raise ValueError("target must be a nonzero vector (a direction)")
    return target * np.linalg.norm(last) / np.linalg.norm(target)


def plot_e2_joint(joint: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """The authors' joint-training plots (chapter figure ``fig-jexp-e2-joint``) from ``joint`` (E2's
    ``data`` with the probability curves): top row the softmax and logistic probabilities over the
    first steps, bottom row the paths of ``W`` and ``v`` with their SVM directions (:func:`rescaled`)
    and arrows (:data:`JOINT_ARROWS`) in the authors' view :data:`JOINT_VIEW`, one column per ``p``.
    Returns the figure and one table line per ``p``."""
    plt = _pyplot()
    fig, axs = plt.subplots(2, 3, figsize=(7.2, 5.6))
    lines = ["   p | softmax prob. at steps 0, 10, 50, 99 | logistic prob. at steps 0, 10, 50, 99 | "
             "both at the end"]
    for c, (p, r) in enumerate(joint.items()):
        ks = np.asarray(r["prob_steps"])
        sfx, lgt = np.asarray(r["softmax_prob"]), np.asarray(r["logistic_prob"])
        axs[0, c].plot(ks, lgt, label="logistic prob.")
        axs[0, c].plot(ks, sfx, label="softmax prob.")
        axs[0, c].set_ylim(0.3, 1.02)
        axs[0, c].set_xlabel("iteration")
        axs[0, c].grid(alpha=.4)
        axs[0, c].set_title(f"p = {float(p):g}", fontsize=9)
        st, Wp, vp = np.asarray(r["steps"]), np.asarray(r["W_path"])[:, :2], np.asarray(r["v_path"])
        W2, v2 = rescaled(np.asarray(r["Wmm"])[0], Wp[-1]), rescaled(r["vmm"], vp[-1])
        ax = axs[1, c]
        ax.plot(Wp[:, 0], Wp[:, 1], color="C0", label="JointGD $W$")
        ax.plot([0, W2[0]], [0, W2[1]], color="C1", label="AttSVM $W^{mm}$")
        ax.plot(vp[:, 0], vp[:, 1], color="C2", label="JointGD $v$")
        ax.plot([0, v2[0]], [0, v2[1]], color="C3", label="SVM $v^{mm}$")
        for path, col, marks in ((Wp, "C0", JOINT_ARROWS[p][0]), (vp, "C2", JOINT_ARROWS[p][1])):
            for k in marks:
                j = int(np.searchsorted(st, k, side="right")) - 1
                if j + 1 < len(st):
                    ax.annotate("", xy=path[j + 1], xytext=path[j],
                                arrowprops=dict(arrowstyle="-|>", color=col, lw=1))
        ax.set_xlim(*JOINT_VIEW[p][0])
        ax.set_ylim(*JOINT_VIEW[p][1])
        ax.grid(alpha=.4)
        ax.set_xlabel(r"$W_{11}$ / $v_1$")
        ax.set_ylabel(r"$W_{12}$ / $v_2$")
        lines.append(f"{float(p):4g} | " + ", ".join(f"{sfx[k]:.3f}" for k in (0, 10, 50, 99)) + " | "
                     + ", ".join(f"{lgt[k]:.3f}" for k in (0, 10, 50, 99))
                     + f" | {r['softmax_prob_end']:.6f}, {r['logistic_prob_end']:.6f}")
    axs[0, 0].set_ylabel("probability")
    axs[0, 0].legend(fontsize=7, loc="lower right")
    axs[1, 0].legend(fontsize=6, loc="upper left")
    plt.tight_layout()
    return fig, lines


def standin_lines(e3: Mapping[str, Any], e4: Mapping[str, Any], scale: str) -> list[str]:
    """The printed summary of the E3 and E4 stand-in runs ``e3``, ``e4`` (results of
    :func:`~attention_theory.julistiono.mirror_descent_training.run_e3_standin` and
    ``run_e4_standin``) at ``scale``: test accuracy, attention on the planted tokens and sparsity."""
    if not isinstance(scale, str) or scale not in ("smoke", "full"):
        raise ValueError(f"scale: expected 'smoke' or 'full', got {scale!r}")
    check_mapping(e3, "e3", ("n_train", "steps", "lr", "1.1", "2.0", "3.0"))
    check_mapping(e4, "e4", ("md-1.1", "adam", "gd"))
    lines = [f"E3 STAND-IN (synthetic, not IMDb), {scale} scale: n_train={e3['n_train']}, {e3['steps']} "
             "full-batch steps"]
    for p in ("1.1", "2.0", "3.0"):
        r = e3[p]
        lines.append(f"  l_{float(p):g}-MD (lr {e3['lr'][p]}): test acc {r['test_accuracy']:.2f}, attention "
                     f"on planted tokens {r['attention_on_signal']:.2f}, W entries <1% of max: "
                     f"{r['sparsity_W']:.0%}")
    lines.append(f"E4 STAND-IN (synthetic shapes, not CIFAR-10), {scale} scale")
    for k in ("md-1.1", "adam", "gd"):
        r = e4[k]
        lines.append(f"  {k:6s}: test acc {r['test_accuracy']:.2f}, parameters <1% of max: "
                     f"{r['sparsity_all']:.0%}")
    return lines


def stairs(ax: Any, h: Mapping[str, Any], label: str, color: str, ls: str = "-") -> None:
    """Draw the histogram ``h`` (``counts``, ``max_abs`` of a stand-in's weight histogram) on ``ax`` as
    stairs over ``[0, 1]``, empty bins not drawn, log count axis; the legend gives the largest
    magnitude."""
    counts = np.asarray(h["counts"], dtype=float)
    ax.stairs(np.where(counts > 0, counts, np.nan), np.linspace(0, 1, len(counts) + 1), color=color,
              ls=ls, lw=1.5, label=f"{label} (max {h['max_abs']:.2g})")
    ax.set_yscale("log")
    ax.set_xlim(0, 1)


def has_histograms(standin: Mapping[str, Any]) -> bool:
    """Whether the committed stand-in results ``standin`` (file name -> ``data``) carry the weight
    histograms of every model (results written before the histograms were added do not)."""
    check_mapping(standin, "standin")
    want = (("e3_standin.json", ("1.1", "2.0", "3.0")), ("e4_standin.json", ("md-1.1", "adam", "gd")))
    return all(f in standin and "hist_W" in standin[f].get(k, {}) for f, ks in want for k in ks)


def plot_weight_histograms(e3: Mapping[str, Any], e4: Mapping[str, Any]) -> Any:
    """Histograms of the magnitudes of the learned weights of the stand-ins (chapter figure
    ``fig-jexp-weight-hist``): ``W`` of the E3 stand-in per ``p``, and ``W`` and ``V`` of the E4
    stand-in per optimizer (:func:`stairs`)."""
    plt = _pyplot()
    fig, axs = plt.subplots(1, 3, figsize=(7.2, 2.8), sharey=False)
    for c, p in enumerate(("1.1", "2.0", "3.0")):
        stairs(axs[0], e3[p]["hist_W"], rf"$\ell_{{{float(p):g}}}$-MD", f"C{c}")
    axs[0].set_title(f"E3 stand-in: $W$ ({e3['1.1']['hist_W']['n']} entries)", fontsize=9)
    for c, k in enumerate(("md-1.1", "adam", "gd")):
        lab = {"md-1.1": r"$\ell_{1.1}$-MD", "adam": "Adam", "gd": "GD"}[k]
        stairs(axs[1], e4[k]["hist_W"], lab, f"C{c + 3}")
        stairs(axs[2], e4[k]["hist_V"], lab, f"C{c + 3}")
    axs[1].set_title(f"E4 stand-in: $W$ ({e4['adam']['hist_W']['n']} entries)", fontsize=9)
    axs[2].set_title(f"E4 stand-in: $V$ ({e4['adam']['hist_V']['n']} entries)", fontsize=9)
    for ax in axs:
        ax.set_xlabel("|entry| / max |entry|", fontsize=8)
        ax.legend(fontsize=6.5)
        ax.tick_params(labelsize=7)
    axs[0].set_ylabel("number of entries (log)", fontsize=8)
    plt.tight_layout()
    return fig
