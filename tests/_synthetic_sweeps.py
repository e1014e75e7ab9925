"""Synthetic sparse-majority sweeps for the Trauger tests: per-length curves with a seeded jitter."""

import numpy as np

#: The paper's sequence lengths.
TS = (20, 40, 60, 80, 100, 120, 140, 160, 180, 200)


def synthetic_runs(l1, gap, acc, seeds=5, noise=0.01):
    """``seeds`` runs per length: the given per-T curves times (1 +- noise) (deterministic jitter)."""
    rng = np.random.default_rng(0)
    return [{"T": T, "seed": s, "weight_l1": l1(T) * (1 + noise * rng.standard_normal()),
             "gen_gap": gap(T) * (1 + noise * rng.standard_normal()),
             "val_acc": acc(T) * (1 + noise * rng.standard_normal())}
            for T in TS for s in range(seeds)]
