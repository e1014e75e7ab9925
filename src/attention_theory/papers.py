"""The one list of papers the book covers.

Everything that depends on which papers exist derives from :data:`PAPERS`: the claim-ID
pattern (:data:`attention_theory.verify.CLAIM_ID_PATTERN`), the per-paper tables and
dependency graphs of the Sphinx extension, and check discovery
(:func:`check_modules`: every module under ``attention_theory.<key>.checks``). Adding a
paper is one entry here plus its package folder and its part of ``_toc.yml``.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re

__all__ = ["Paper", "PAPERS", "SHARED_CHECK_PACKAGES", "paper", "claim_id_pattern",
           "check_module_names", "check_modules"]


@dataclasses.dataclass(frozen=True)
class Paper:
    """One paper: ``key`` (claim-ID prefix and package name), ``short`` (how the book names it),
    ``cite`` (its key in ``book/references.bib``), ``title``, and ``experiments``: the modules that
    declare its runnable experiments (each defines ``EXPERIMENT``, see
    :mod:`attention_theory.experiment`); ``covers``: what the book covers of it, in a few words (the
    introduction's table of papers)."""

    key: str
    short: str
    cite: str
    title: str
    experiments: tuple[str, ...] = ()
    covers: str = ""


PAPERS: tuple[Paper, ...] = (
    Paper("trauger", "Trauger & Tewari (2024)", "trauger2024sequence",
          "Sequence Length Independent Norm-Based Generalization Bounds for Transformers",
          ("attention_theory.trauger.sparse_majority.experiment",),
          covers="norm-based generalization bounds that do not grow with sequence length"),
    Paper("deora", "Deora et al. (2024)", "deora2024optimization",
          "On the Optimization and Generalization of Multi-head Attention",
          ("attention_theory.deora.head_sweeps", "attention_theory.deora.sst2"),
          covers="optimization and generalization of multi-head attention trained by gradient descent"),
    Paper("qin", "Qin, Zhou & Zhu (2025)", "qin2025convergence",
          "On the Convergence of Gradient Descent on Learning Transformers with Residual Connections",
          ("attention_theory.qin.residual_training",),
          covers="gradient descent on a single-layer Transformer with residual connections"),
    Paper("julistiono", "Julistiono, Tarzanagh & Azizan (2024)", "julistiono2024mirror",
          "Optimizing Attention with Mirror Descent: Generalized Max-Margin Token Selection",
          ("attention_theory.julistiono.mirror_descent_training",),
          covers=r"$\ell_p$ mirror descent on attention and its max-margin limit"),
)

#: Check packages that belong to no paper (their claims use a paper's ID prefix).
SHARED_CHECK_PACKAGES: tuple[str, ...] = ("foundations",)


def paper(key: str) -> Paper:
    """The :class:`Paper` with this key; ``ValueError`` naming the known keys otherwise."""
    for p in PAPERS:
        if p.key == key:
            return p
    raise ValueError(f"key: unknown paper {key!r}; expected one of {[p.key for p in PAPERS]}")


def claim_id_pattern() -> re.Pattern[str]:
    """``<paper>-<kind>-<number>`` with dots written as hyphens, for the papers in :data:`PAPERS`."""
    keys = "|".join(re.escape(p.key) for p in PAPERS)
    return re.compile(rf"^({keys})-[a-z]+(-[a-z0-9]+)*$")


def check_module_names() -> list[str]:
    """Dotted names of every check module: ``attention_theory.<pkg>.checks`` and, when that is
    a package, each module inside it (found on disk, so no list is kept by hand)."""
    names = []
    for pkg in (*SHARED_CHECK_PACKAGES, *(p.key for p in PAPERS)):
        base = f"attention_theory.{pkg}.checks"
        mod = importlib.import_module(base)
        names.append(base)
        if hasattr(mod, "__path__"):
            names += sorted(f"{base}.{m.name}" for m in pkgutil.iter_modules(mod.__path__))
    return names


def check_modules() -> list:
    """Import every check module (importing registers its checks) and return them."""
    return [importlib.import_module(n) for n in check_module_names()]
