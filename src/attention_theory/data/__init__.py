"""Data generators (each seeded, each validated)."""
