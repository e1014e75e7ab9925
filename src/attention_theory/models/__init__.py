"""Model definitions of the papers (torch, float64): :mod:`~attention_theory.models.deora`."""
