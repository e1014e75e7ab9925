"""Optimizers and training loops shared by the chapters (GD, momentum, Adam, mirror descent,
batched multi-run training)."""
