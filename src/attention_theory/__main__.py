"""``python -m attention_theory run <paper> <experiment> [...]`` (see :mod:`attention_theory.experiment`)."""

from attention_theory.experiment import main

if __name__ == "__main__":
    raise SystemExit(main())
