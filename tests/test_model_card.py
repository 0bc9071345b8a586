"""One run through the core workflow, on a tiny RoBERTa-family encoder: the paper's k for that family reaches the
preflight check, the app's run label, the help text and training alike; the run's model card reads true against
its own run.json and senteval.json; the shipped scorers' cards are the ones the same code writes today."""

from __future__ import annotations

import json
import re
from dataclasses import fields

import pytest
from fault_helpers import PAIRS

from stsdemo import environment
from stsdemo.config import TrainConfig, help_line
from stsdemo.data import senteval_test_sets
from stsdemo.events import DoneEvent, FinalEvalEvent, StartEvent
from stsdemo.model import SiameseRegressor
from stsdemo.model_card import card_text, write_card
from stsdemo.preflight import preflight
from stsdemo.workflow import train_and_evaluate


def tiny_roberta(folder):
    """A 1-layer, 32-wide RoBERTa (with the embedded model's tokenizer) saved in ``folder``."""
    import torch
    from transformers import AutoTokenizer, RobertaConfig, RobertaModel

    torch.manual_seed(0)
    tokenizer = AutoTokenizer.from_pretrained(str(environment.default_model_path()))
    config = RobertaConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=66,
        type_vocab_size=1,
        pad_token_id=tokenizer.pad_token_id,
    )
    SiameseRegressor(RobertaModel(config), tokenizer, max_length=32, base_model="tiny-roberta").save(folder)
    return str(folder)


@pytest.fixture(scope="module")
def roberta_run(tmp_path_factory):
    """A two-step Smooth K2 run (k left to the paper) from the tiny RoBERTa, evaluated on 8 pairs a task."""
    root = tmp_path_factory.mktemp("roberta")
    config = TrainConfig(
        model=tiny_roberta(root / "start"),
        loss="sk2",
        data="stsb",
        max_pairs=16,
        max_dev_pairs=8,
        max_length=16,
        batch_size=4,
        max_steps=2,
        eval_every=1,
        log_every=1,
        lr=1e-4,
        output_dir=str(root / "run"),
    )
    sets = {task: pairs.spaced(8) for task, pairs in senteval_test_sets().items()}
    events = list(train_and_evaluate(config, evaluate=True, test_sets=sets))
    return config, events, root / "run"


def test_a_roberta_runs_label_help_and_training_take_the_same_paper_k(roberta_run):
    from stsdemo.app.finetune.view import run_label

    config, events, folder = roberta_run
    checked = preflight(config)
    assert config.k is None and checked.k == 3.0  # Table 2: Smooth K2, RoBERTa
    assert run_label(1, checked) == "#1 sk2 k=3"
    assert "[paper: sk2: 2 (BERT) / 3 (RoBERTa);" in help_line("k")  # the help text says the same
    start = next(e for e in events if isinstance(e, StartEvent))
    run = json.loads((folder / "run.json").read_text())
    assert (
        start.config["k"] == run["config"]["k"] == run["stages"][0]["k"] == 3.0
    )  # what the loss trained with


def test_the_workflow_trains_then_scores_the_best_checkpoint(roberta_run):
    _, events, folder = roberta_run
    done = next(e for e in events if isinstance(e, DoneEvent))
    finals = [e for e in events if isinstance(e, FinalEvalEvent)]
    assert done.outcome == "finished" and done.message == "" and events.index(done) < events.index(finals[0])
    assert [e.fraction for e in finals][-1] == 1.0 and finals[-1].what == "fine-tuned"
    scores = finals[-1]
    assert set(scores.results) == {*scores.node_accuracy} and "Avg." in scores.results
    assert scores.node_from == "the model's own prediction"
    recorded = json.loads((folder / "senteval.json").read_text())
    assert recorded == {
        "run": scores.results,
        "run (prediction)": scores.prediction,
        "run (on the right node %)": scores.node_accuracy,
    }


def _non_default(config: dict) -> dict:
    return {
        f.name: config[f.name]
        for f in fields(TrainConfig)
        if f.name in config and config[f.name] != f.default and f.name not in ("output_dir", "run_name", "k")
    }


def test_the_model_card_reads_true_against_the_runs_record(roberta_run):
    config, _, folder = roberta_run
    card = (folder / "README.md").read_text()
    run = json.loads((folder / "run.json").read_text())
    tests = json.loads((folder / "senteval.json").read_text())
    assert card == card_text(
        run,
        json.loads((folder / "stsdemo.json").read_text()),
        tests,
        None,
        json.loads((folder / "config.json").read_text()),
    )
    assert card.startswith('---\nlibrary_name: "sentence-transformers"\npipeline_tag: "sentence-similarity"')
    for stage in run["stages"]:
        assert f"{stage['pairs']:,} pairs of `{stage['data']}`, {stage['steps']:,} steps" in card
        assert f"Smooth K2 (ours) with k = {stage['k']:g}, x0 = {stage['x0']:g}" in card
    for name, value in _non_default(run["config"]).items():
        shown = "start" if name == "model" else value
        assert f"- `{name}`: {shown}" in card, name
    rows = [line for line in card.splitlines() if re.match(r"\| \**\d", line)]
    assert len(rows) == len(run["dev_curve"])
    for row, point in zip(rows, run["dev_curve"]):
        cells = [cell.strip("* ") for cell in row.strip("|").split("|")]
        assert cells == [
            str(point["stage"]),
            str(point["step"]),
            f"{point['dev_cosine']:.2f}",
            f"{point['dev_head']:.2f}",
            f"{point['dev_accuracy']:.1f}",
        ]
        assert row.startswith("| **") == ([point["stage"], point["step"]] == run["best_step"])
    assert f"The run finished after {run['steps']:,} steps." in card
    assert "### Framework Versions" in card and f"- torch: {run['versions']['torch']}" in card
    for label, row in tests.items():
        assert " | ".join(f"{row[t]:.2f}" for t in row) in card, label
    assert str(folder.parent) not in card and 'SiameseRegressor.load("path/to/this/folder")' in card
    assert 'SentenceTransformer("path/to/this/folder")' in card  # full weights: loads as it is


@pytest.mark.parametrize(
    "folder", [environment.default_scorer_dir(), environment.nli_scorer_dir()], ids=["default", "nli"]
)
def test_the_shipped_scorers_cards_are_written_by_the_same_code(folder, tmp_path):
    if not (folder / "run.json").is_file():
        pytest.skip("no shipped scorer in this checkout")
    copy = tmp_path / folder.name
    copy.mkdir()
    for item in folder.iterdir():
        if item.is_file() and item.name != "README.md":
            (copy / item.name).write_bytes(item.read_bytes())
    write_card(copy)
    shipped = (folder / "README.md").read_text()
    assert (copy / "README.md").read_text() == shipped, "stale card: run stsdemo.model_card.write_card on it"
    assert "python -m stsdemo export" in shipped  # a LoRA scorer says how to export


def test_a_sentence_transformers_load_of_the_run_matches_ours(roberta_run):
    from sentence_transformers import SentenceTransformer

    _, _, folder = roberta_run
    st = SentenceTransformer(str(folder), device="cpu").encode(PAIRS[0])
    ours = SiameseRegressor.load(str(folder)).encode(PAIRS[0])
    assert st.shape == ours.shape and abs(st - ours).max() < 1e-4


@pytest.mark.slow  # trains (a tiny model, a few steps)
def test_stsdemo_export_writes_the_model_its_records_and_its_card(roberta_run, tmp_path, capsys):
    """``python -m stsdemo export`` (the export the app's zip uses too): the folder loads on its own and holds
    the run's records, with no path of the machine in them, and the card written from those records."""
    from stsdemo.cli import main

    _, _, folder = roberta_run
    out = tmp_path / "exported"
    assert main(["export", str(folder), str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out.resolve())
    records = {
        name: json.loads((out / name).read_text())
        for name in ("run.json", "senteval.json", "stsdemo.json", "config.json")
    }
    card = (out / "README.md").read_text()
    assert card == card_text(
        records["run.json"], records["stsdemo.json"], records["senteval.json"], None, records["config.json"]
    )
    run = json.loads((folder / "run.json").read_text())
    assert records["run.json"]["dev_curve"] == run["dev_curve"]
    assert (records["run.json"]["config"]["output_dir"], records["run.json"]["config"]["model"]) == (
        "./run",
        "./start",
    )
    assert str(folder.parent) not in (out / "run.json").read_text() + (out / "stsdemo.json").read_text()
    assert SiameseRegressor.load(str(out)).predict(*PAIRS).shape == (2,)
