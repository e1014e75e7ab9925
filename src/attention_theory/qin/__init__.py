"""Qin, Zhou & Zhu (2025), gradient descent on a single-layer Transformer with residual
connections (reconstructed: the source lost its formulas).

* :mod:`~.model` attention + feed-forward network with switchable residual connections,
  hand-written backward passes;
* :mod:`~.bounds` block-wise gradient Lipschitz bounds and the linear rate;
* :mod:`~.residual_gd` instances, Hessian tools and training runs the checks use;
* :mod:`~.searches` what the checks of ``book/qin/residual-gd.md`` search over;
* :mod:`~.residual_training` the experiment ``residual-training`` (``python -m attention_theory
  run qin residual-training``), with E4 in :mod:`~.stability`;
* :mod:`~.figures` the figures and summaries of ``book/qin/experiments.md`` (committed results);
* :mod:`~.checks` the registered checks, one module per chapter.
"""
