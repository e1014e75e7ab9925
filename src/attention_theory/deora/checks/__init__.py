"""Registered checks of this paper, one module per chapter (found by
:func:`attention_theory.papers.check_modules`)."""
