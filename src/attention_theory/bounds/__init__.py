"""Closed-form constants and bounds of the papers: :mod:`~attention_theory.bounds.deora`."""
