"""Registered checks of the Foundations part, one module per chapter of ``book/foundations/``
(found by :func:`attention_theory.papers.check_modules`)."""
