"""Shared mathematics of the book (never imports a paper).

* :mod:`~.norms` matrix and mixed norms in both papers' conventions; :mod:`~.softmax` softmax,
  its Jacobian and second derivative; :mod:`~.losses` logistic and cross-entropy losses;
* :mod:`~.rademacher` empirical Rademacher complexity; :mod:`~.covering` covering and packing
  numbers; :mod:`~.dudley` Dudley's entropy integral; :mod:`~.maurey` Maurey's sparsification
  and the covers built from it; :mod:`~.thresholds` a toy class with exact risks;
* :mod:`~.hessian` Hessian spectra by Lanczos; :mod:`~.mirror` l_p mirror maps and Bregman
  divergences; :mod:`~.gd` first-order training loops; :mod:`~.tensors` float64 helpers;
* :mod:`~.checks` the checks of the Foundations part of the book.
"""
