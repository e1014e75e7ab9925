"""Registered checks of this paper, one module per chapter (found by
:func:`attention_theory.papers.check_modules`): :mod:`.mirror_descent`, :mod:`.attention_svm` and
:mod:`.convergence` for ``book/julistiono/mirror-descent.md``, ``attention-svm.md`` and
``convergence.md``."""
