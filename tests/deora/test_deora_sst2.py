"""Unit tests of the Figure 6 code: GLUE/datasets loaders, the RoBERTa builder, the asset
messages, the lexicon-sentiment generator and vocabulary, the substitute encoder and trainer."""

import sys
import types
from pathlib import Path

import numpy as np
import pytest
import torch

from attention_theory.deora import lexicon_sentiment as ls
from attention_theory.deora import sst2 as ds
from attention_theory.deora import sst2_substitute
from attention_theory.deora.sentiment_encoder import build_encoder, parameter_count

# --- GLUE TSV and datasets-cache loaders -------------------------------------------------------

def _write(p: Path, text: str) -> Path:
    p.write_text(text, encoding="utf-8")
    return p


def test_read_glue_tsv_and_load_sst2_folder(tmp_path):
    _write(tmp_path / "train.tsv", "sentence\tlabel\na fine film \t1\na poor film \t0\n")
    _write(tmp_path / "dev.tsv", "sentence\tlabel\nok \"quoted\" film\t1\n")
    sst = ds.load_sst2(tmp_path)
    assert sst["train"][0] == ["a fine film ", "a poor film "]
    assert sst["train"][1].tolist() == [1, 0] and sst["train"][1].dtype == np.int64
    assert sst["validation"][0] == ['ok "quoted" film']


def test_read_glue_tsv_column_order_from_header(tmp_path):
    p = _write(tmp_path / "x.tsv", "label\tsentence\n0\tbad\n1\tgood\n")
    assert ds.read_glue_tsv(p)[0] == ["bad", "good"]


@pytest.mark.parametrize("text, match", [
    ("text\tlabel\nx\t1\n", "header"),
    ("sentence\tlabel\nx\t2\n", "0 or 1"),
    ("sentence\tlabel\nx\tpos\n", "0 or 1"),
    ("sentence\tlabel\nonly-one-field\n", "fields"),
    ("sentence\tlabel\n", "no sentences"),
])
def test_read_glue_tsv_rejects_bad_files(tmp_path, text, match):
    with pytest.raises(ValueError, match=match):
        ds.read_glue_tsv(_write(tmp_path / "bad.tsv", text))


def test_load_sst2_bad_sources(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a folder"):
        ds.load_sst2(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="train.tsv"):
        ds.load_sst2(tmp_path)
    with pytest.raises(TypeError, match="source"):
        ds.load_sst2(3)


def test_load_sst2_from_datasets_cache_offline(monkeypatch):
    import os

    calls = []
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)

    def load_dataset(name, config):
        calls.append((name, config, os.environ.get("HF_DATASETS_OFFLINE")))
        return {"train": {"sentence": ["good", "bad"], "label": [1, 0]},
                "validation": {"sentence": ["fine"], "label": [1]}}

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    sst = ds.load_sst2("hf")
    assert calls == [("glue", "sst2", "1")]                  # offline while loading ...
    assert sst["train"][0] == ["good", "bad"] and sst["validation"][1].tolist() == [1]
    assert "HF_DATASETS_OFFLINE" not in os.environ           # ... and the environment restored


def test_load_sst2_empty_datasets_cache_names_the_fetch_command(monkeypatch):
    def load_dataset(name, config):
        raise ConnectionError("offline and not cached")

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    with pytest.raises(FileNotFoundError, match="load_dataset\\('glue', 'sst2'\\)"):
        ds.load_sst2("hf")


# --- assets and the RoBERTa builder -------------------------------------------------------------

def test_assets_message_names_what_is_missing_and_how_to_fetch():
    msg = ds.assets_message(["`roberta-base` weights (x)", "`glue/sst2` data (y)"])
    for needle in ("roberta-base", "glue/sst2", "huggingface-cli download roberta-base",
                   "datasets.load_dataset('glue', 'sst2')", "pip install -e '.[sst2]'"):
        assert needle in msg
    assert ds.assets_message([]).startswith("All assets")


def test_missing_assets_lists_model_and_data(tmp_path):
    missing = ds.missing_assets(str(tmp_path / "no-model"), str(tmp_path / "no-data"))
    assert any("no-model" in m and "weights" in m for m in missing)
    assert any("glue/sst2" in m for m in missing)


def test_cli_sst2_without_assets_exits_2_with_the_message(tmp_path, capsys):
    from attention_theory.experiment import run_cli

    with pytest.raises(SystemExit) as exc:
        run_cli(ds.EXPERIMENT, ["--parts", "sst2", "--scale", "smoke", "--model", str(tmp_path / "none"),
                                "--data", str(tmp_path), "--out", str(tmp_path / "out")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Missing" in err and "huggingface-cli download roberta-base" in err
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def fixture_dirs(tmp_path_factory):
    pytest.importorskip("transformers")
    ds.quiet_transformers()
    return ds.write_fixture(tmp_path_factory.mktemp("fig6-fixture"))


def test_fixture_assets_are_found_and_loaded(fixture_dirs):
    assert ds.missing_assets(str(fixture_dirs["model"]), str(fixture_dirs["data"])) == []
    sst = ds.load_sst2(fixture_dirs["data"])
    assert len(sst["train"][0]) == len(ds.FIXTURE_TRAIN) and len(sst["validation"][0]) == len(ds.FIXTURE_DEV)
    tok = ds.load_tokenizer(fixture_dirs["model"])
    enc = tok(["a warm film"])
    assert enc["input_ids"][0][0] == 0 and enc["input_ids"][0][-1] == 2  # <s> ... </s>


def test_build_model_sets_heads_and_rejects_non_divisors(fixture_dirs):
    m = ds.build_model(fixture_dirs["model"], 8)
    assert m.config.num_attention_heads == 8 and m.config.num_labels == 2
    with pytest.raises(ValueError, match="must divide the hidden size 32"):
        ds.build_model(fixture_dirs["model"], 3)
    with pytest.raises(TypeError):
        ds.build_model(fixture_dirs["model"], 2.0)


def test_finetune_logs_steps_and_epochs(fixture_dirs):
    sst = ds.load_sst2(fixture_dirs["data"])
    tok = ds.load_tokenizer(fixture_dirs["model"])
    m = ds.build_model(fixture_dirs["model"], 2)
    out = ds.finetune(m, tok, sst["train"], sst["validation"], batch_size=3, epochs=2, progress=False)
    assert len(out["step_loss"]) == 2 * 3 and len(out["val_loss"]) == 2 and len(out["val_acc"]) == 2
    assert all(0 <= a <= 1 for a in out["val_acc"])
    with pytest.raises(ValueError, match="equally long"):
        ds.finetune(m, tok, (["a"], [1, 0]), progress=False)
    with pytest.raises(ValueError, match="lr"):
        ds.finetune(m, tok, sst["train"], lr=-1.0, progress=False)


# --- lexicon generator --------------------------------------------------------------------------

def test_lexicon_read_from_the_wheel():
    lex = ls.load_vader_lexicon()
    assert len(lex) > 7000 and lex["good"] == pytest.approx(1.9)
    full = ls.polar_lexicon()
    assert all(abs(full.tenths[w]) >= 15 for w in full.words)
    assert all(full.tenths[w] > 0 for w in full.positive) and all(full.tenths[w] < 0 for w in full.negative)
    assert not set(full.words) & (set(ls.FILLERS) | set(ls.NEGATORS))
    small = ls.polar_lexicon(1.5, 25)
    assert len(small.positive) == len(small.negative) == 25 and set(small.words) <= set(full.words)
    assert ls.polar_lexicon(1.5, 25) == small


def test_label_rule_negation_and_ties():
    lex = ls.polar_lexicon()
    assert ls.label_tokens(["a", "good", "film"], lex) == 1
    assert ls.label_tokens(["not", "a", "good", "film"], lex) == 0
    assert ls.label_tokens(["not", "not", "good"], lex) == 1
    assert ls.label_tokens(["never", "good", "good"], lex) is None  # -1.9 + 1.9: a tie
    assert ls.label_tokens(["the", "film"], lex) is None
    with pytest.raises(TypeError):
        ls.label_tokens("good film", lex)


def test_generator_matches_the_catalogue():
    lex = ls.polar_lexicon(1.5, ls.DEFAULT_N_POLAR)
    sents, y = ls.generate(500, seed=3)
    assert len(sents) == 500 and y.dtype == np.int64 and set(y.tolist()) == {0, 1}
    assert 0.4 < y.mean() < 0.6
    for s, lab in zip(sents, y):
        assert 8 <= len(s) <= 24
        assert 1 <= sum(t in lex.tenths for t in s) <= 3
        assert all(t in lex.tenths or t in ls.FILLERS or t in ls.NEGATORS for t in s)
        assert ls.label_tokens(s, lex) == lab
    s2, y2 = ls.generate(500, seed=3)
    assert s2 == sents and np.array_equal(y, y2)
    assert ls.generate(50, seed=4)[0] != sents[:50]


@pytest.mark.parametrize("kwargs, exc", [
    ({"n": 0}, ValueError), ({"n": 2.5}, TypeError), ({"n": 5, "min_len": 10, "max_len": 9}, ValueError),
    ({"n": 5, "p_negate": 1.5}, ValueError), ({"n": 5, "max_polar": 9}, ValueError),
    ({"n": 5, "seed": -1}, ValueError), ({"n": 5, "lexicon": {"good": 1.9}}, TypeError),
    ({"n": 5, "n_polar": 10**6}, ValueError),
])
def test_generator_bad_input(kwargs, exc):
    with pytest.raises(exc):
        ls.generate(**kwargs)


def test_polar_lexicon_bad_input():
    with pytest.raises(ValueError):
        ls.polar_lexicon(5.0)
    with pytest.raises(ValueError):
        ls.polar_lexicon(0.0)


def test_word_vocab_encode_decode():
    v = ls.WordVocab(["the", "good", "film"])
    X = v.encode([["the", "good", "film"], "the unknownword"], max_len=4)
    assert X.shape == (2, 5) and X.dtype == np.int64
    assert X[0].tolist() == [1, 3, 4, 5, 0] and X[1].tolist() == [1, 3, 2, 0, 0]
    assert v.decode(X[0]) == ["the", "good", "film"]
    assert v.encode([["the"] * 10], max_len=3).shape == (1, 4)
    with pytest.raises(TypeError):
        v.encode("the good film")
    with pytest.raises(TypeError):
        ls.WordVocab(["ok", ""])


# --- substitute encoder and trainer -------------------------------------------------------------

def test_encoder_same_parameters_for_every_head_count():
    models = {H: build_encoder(100, H, seed=1) for H in (1, 2, 4, 8, 16)}
    counts = {parameter_count(m) for m in models.values()}
    assert len(counts) == 1
    ref = models[1].state_dict()
    for m in models.values():
        assert all(torch.equal(ref[k], v) for k, v in m.state_dict().items())
    ids = torch.tensor([[1, 5, 6, 7, 0, 0]])
    outs = {H: m(ids) for H, m in models.items()}
    assert outs[1].shape == (1, 2)
    assert not torch.allclose(outs[1], outs[16])
    with pytest.raises(ValueError, match="divide"):
        build_encoder(100, 3)
    with pytest.raises(ValueError, match="max_len"):
        models[1](torch.ones(1, 40, dtype=torch.long))


def test_encoder_ignores_padding():
    m = build_encoder(50, 4, seed=0, dtype=torch.float64)
    a = m(torch.tensor([[1, 5, 6, 0, 0]]))
    b = m(torch.tensor([[1, 5, 6, 0, 0, 0, 0]]))
    assert torch.allclose(a, b, atol=1e-12)


def test_train_substitute_logs_and_is_deterministic():
    data = ls.lexicon_dataset(96, 40, seed=0)
    kw = dict(epochs=2, evals_per_epoch=2, progress=False)
    r1, r2 = sst2_substitute.train_substitute(data, 2, **kw), sst2_substitute.train_substitute(data, 2, **kw)
    assert len(r1["step_loss"]) == 2 * 3 and r1["eval_step"].tolist() == [0, 2, 3, 5, 6]
    assert np.array_equal(r1["step_loss"], r2["step_loss"]) and np.array_equal(r1["test_acc"], r2["test_acc"])
    with pytest.raises(ValueError):
        sst2_substitute.train_substitute(data, 2, dtype="float16")
    with pytest.raises(ValueError):
        sst2_substitute.train_substitute(data, 5)


def test_substitute_config_and_checkpoint_resume(tmp_path):
    assert sst2_substitute.substitute_config("full")["heads"] == [1, 2, 4, 8, 16]
    assert sst2_substitute.substitute_config("full")["n_train"] == 20000
    with pytest.raises(ValueError):
        sst2_substitute.substitute_config("huge")
    cfg = sst2_substitute.substitute_config("smoke") | {"n_train": 64, "n_test": 32, "epochs": 1,
                                                        "heads": [1, 2]}
    ck = tmp_path / "ck.json"
    first = sst2_substitute.run_substitute(cfg, progress=False, checkpoint=ck)
    assert ck.exists()
    again = sst2_substitute.run_substitute(cfg | {"heads": [2]}, progress=False,
                                           checkpoint=ck)  # reused, not retrained
    assert np.allclose(again["runs"][2][0]["step_loss"], first["runs"][2][0]["step_loss"])
    summary = sst2_substitute.summarize_substitute(first)
    assert set(summary) == {1, 2} and 0 <= summary[1]["final_test_acc"] <= 1


def test_cli_substitute_writes_result_with_provenance(tmp_path, monkeypatch):
    tiny = sst2_substitute.substitute_config("smoke") | {"n_train": 64, "n_test": 32, "epochs": 1,
                                                         "heads": [1]}
    monkeypatch.setattr(ds, "substitute_config", lambda scale=None: dict(tiny))
    from attention_theory.experiment import run_cli

    written = run_cli(ds.EXPERIMENT, ["--parts", "substitute", "--scale", "smoke", "--out", str(tmp_path),
                                      "--no-progress"])
    assert written == {"substitute": tmp_path / "fig6_substitute_smoke.json"}
    from attention_theory.results import read_result

    res = read_result(tmp_path / "fig6_substitute_smoke.json")
    assert res["provenance"]["scale"] == "smoke" and res["provenance"]["config"]["n_train"] == 64
    assert set(res["data"]["runs"]) == {"1"} and "summary" in res["data"]
    assert not list(tmp_path.glob(".*checkpoint*"))


def test_encoder_init_does_not_depend_on_the_default_dtype():
    a = build_encoder(60, 2, seed=3)
    default = torch.get_default_dtype()
    try:
        torch.set_default_dtype(torch.float64)  # as several check modules do at import
        b = build_encoder(60, 2, seed=3)
    finally:
        torch.set_default_dtype(default)
    assert all(torch.equal(x, y) and x.dtype == torch.float32 for x, y in zip(a.parameters(), b.parameters()))


def test_loaders_leave_the_process_environment_and_generator_as_they_were(fixture_dirs, monkeypatch):
    import os

    import torch

    for k in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")             # a user's own setting is kept
    torch.manual_seed(1234)
    before = torch.random.get_rng_state().clone()
    tok = ds.load_tokenizer(fixture_dirs["model"])
    model = ds.build_model(fixture_dirs["model"], 4, seed=3)
    ds.finetune(model, tok, ds.load_sst2(fixture_dirs["data"])["train"], max_steps=2, progress=False)
    assert torch.equal(torch.random.get_rng_state(), before)
    assert os.environ["HF_HUB_OFFLINE"] == "0"
    assert "HF_DATASETS_OFFLINE" not in os.environ and "TRANSFORMERS_OFFLINE" not in os.environ
    again = ds.build_model(fixture_dirs["model"], 4, seed=3)
    for a, b in zip(ds.build_model(fixture_dirs["model"], 4, seed=3).parameters(), again.parameters()):
        assert torch.equal(a, b)
