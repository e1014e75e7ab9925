"""The runs behind the SST-2 checks (Deora et al., App. G, Figure 6).

:func:`fixture_pipeline_numbers` runs the real RoBERTa fine-tuning code path on a GLUE-format
fixture with a tiny random model, reloaded with several head counts, and returns the numbers to
compare; :func:`smoke_substitute` runs the offline substitute (lexicon sentiment, encoder trained
from scratch) at the current scale.  The checks in :mod:`attention_theory.deora.checks.sst2`
evaluate them (chapter ``book/deora/sst2.md``).
"""

from __future__ import annotations

import tempfile
from typing import Any, Callable, Sequence

import torch

from attention_theory.config import scale
from attention_theory.deora import sst2 as ds
from attention_theory.deora.sst2_substitute import run_substitute
from attention_theory.validation import check_int, check_positive, refuses_overflow

__all__ = ['fixture_pipeline_numbers', 'smoke_substitute']


@refuses_overflow
def fixture_pipeline_numbers(*, heads: Sequence[int] = (1, 2, 4, 8),
                             builder: Callable[..., Any] | None = None,
                             lr: float = ds.PAPER["lr"], steps: int = 2) -> dict[str, Any]:
    """Run the real pipeline on the fixture; return the numbers the check compares.

    ``builder(path, H)`` loads the model (default :func:`~attention_theory.deora.sst2.build_model`);
    everything runs in float64.
    """
    if isinstance(heads, (str, bytes)) or not hasattr(heads, "__iter__"):
        raise TypeError(f"heads must be a sequence of head counts, got {heads!r}")
    heads = [check_int(H, f"heads[{i}]") for i, H in enumerate(heads)]
    if not heads:
        raise ValueError("heads must not be empty")
    if builder is not None and not callable(builder):
        raise TypeError(f"builder must be callable (path, H) -> model, or None, got {type(builder).__name__}")
    check_positive(lr, "lr")
    steps = check_int(steps, "steps")
    builder = builder or ds.build_model
    ds.quiet_transformers()
    with tempfile.TemporaryDirectory() as tmp:
        fx = ds.write_fixture(tmp)
        sst = ds.load_sst2(fx["data"])
        tok = ds.load_tokenizer(fx["model"])
        train, dev = sst["train"], sst["validation"]
        ref_sd, ref_logits = None, None
        out: dict[str, Any] = {"heads": list(heads), "state_dict_diff": {}, "output_diff": {},
                               "loss_before": {}, "loss_after": {}, "n_params": {}}
        for H in heads:
            model = builder(fx["model"], H).to(torch.float64).eval()
            sd = {k: v.detach().clone() for k, v in model.state_dict().items()}
            enc = tok(list(dev[0]), padding=True, return_tensors="pt")
            with torch.no_grad():
                logits = model(**enc).logits
            if ref_sd is None:
                ref_sd, ref_logits = sd, logits
            else:
                same_keys = set(sd) == set(ref_sd) and all(sd[k].shape == ref_sd[k].shape for k in sd)
                out["state_dict_diff"][H] = (max(float((sd[k] - ref_sd[k]).abs().max()) for k in sd)
                                             if same_keys else float("inf"))
                out["output_diff"][H] = float((logits - ref_logits).abs().max())
            out["n_params"][H] = sum(p.numel() for p in model.parameters())
            before, _ = ds.evaluate(model, tok, train[0], train[1])
            ds.finetune(model, tok, train, None, lr=lr, batch_size=len(train[1]), epochs=steps,
                        max_steps=steps,
                        seed=0, progress=False)
            after, _ = ds.evaluate(model, tok, train[0], train[1])
            out["loss_before"][H], out["loss_after"][H] = before, after
    return out


_CACHE: dict[str, Any] = {}


def smoke_substitute(*, progress: bool = False) -> dict[str, Any]:
    """The substitute run live at the current scale: the part ``substitute`` of the experiment
    :mod:`attention_theory.deora.sst2` with its declared configuration
    (``EXPERIMENT.part("substitute").config_for(scale)``), cached (``book/deora/sst2.md`` plots it and
    the check reads it)."""
    key = scale()
    if key not in _CACHE:
        config = ds.EXPERIMENT.part("substitute").config_for(key)
        _CACHE[key] = run_substitute(config, progress=progress)
    return _CACHE[key]
