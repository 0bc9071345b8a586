"""The command line: help, a real score, and bad input ending in one clear line and exit status 2."""

import json
import subprocess
import sys

import pytest

from stsdemo.cli import main


def run_cli(*args, timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "stsdemo", *args], capture_output=True, text=True, timeout=timeout
    )


def test_help_lists_the_commands():
    result = run_cli("--help")
    assert result.returncode == 0
    for command in ("train", "eval", "score", "filter"):
        assert command in result.stdout


def test_train_help_shows_every_option():
    result = run_cli("train", "--help")
    for option in (
        "--loss",
        "--k",
        "--x0",
        "--two-stage",
        "--layer-decay",
        "--preset",
        "--max-steps",
        "--target",
    ):
        assert option in result.stdout


def test_every_train_option_has_a_help_line_with_the_paper_value():
    from stsdemo.cli import build_parser

    train = build_parser()._subparsers._group_actions[0].choices["train"]
    options = [a for a in train._actions if a.option_strings and a.dest != "help"]
    assert all(a.help and "default" not in a.help[:10] for a in options)  # an explanation, not just a default
    helps = {a.dest: a.help for a in options}
    assert "[paper: 0.25]" in helps["x0"] and "[paper: 16]" in helps["batch_size"] and "paper" in helps["k"]


@pytest.mark.parametrize("alias", ["smooth-k2", "smoothk2", "Smooth_K2"])
def test_loss_aliases(alias):
    from stsdemo.config import TrainConfig

    config = TrainConfig(loss=alias, max_steps=1).normalized()
    config.validate()
    assert config.loss == "sk2"
    assert TrainConfig(loss="translated-relu").loss == "translated-relu"  # canonical only once normalized


@pytest.mark.parametrize(
    "args, message",
    [
        (["train", "--x0", "0.7"], "0 <= x0 <= d/2"),
        (["train", "--k", "0"], "slope k must be > 0"),
        (["train", "--lr", "-1"], "learning rate must be > 0"),
        (["train", "--batch-size", "0"], "batch size must be >= 1"),
        (["train", "--loss", "hinge"], "unknown loss 'hinge'"),
        (["train", "--preset", "nope"], "invalid choice"),
        (["train", "--data", "missing.csv", "--max-steps", "1"], "missing.csv"),
        (["train", "--model", "/etc", "--max-steps", "1"], "is not a model: it has no config.json"),
        (["train", "--model", "/no/such/model", "--max-steps", "1"], "does not exist"),
        (["score", "   ", "a sentence", "--model", ""], "sentence 1 is empty"),
        (["score", "--model", "", "only one"], "give two sentences"),
        (["eval", "--tasks", "STS99"], "unknown task"),
        (["eval", "/etc"], "is not a model"),
        (["train", "--target", "cosine", "--loss", "ce"], "cannot train the 'cosine' target"),
        (["train", "--target", "cosine", "--loss", "infonce"], "cannot train the 'cosine' target"),
        (["train", "--target", "angle"], "invalid choice: 'angle'"),
        (["bogus"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        sys.exit(main(args))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_exit_code_2_from_a_real_process():
    result = run_cli("train", "--x0", "0.9")
    assert result.returncode == 2 and result.stderr.strip().startswith("stsdemo: error:")


def test_local_cli_loads_models_from_any_folder(embedded_model, capsys):
    """A person running the CLI owns every path: no allowed-folders rule outside the app."""
    import shutil
    import tempfile
    from pathlib import Path

    from stsdemo.model import SiameseRegressor

    folder = Path(tempfile.mkdtemp(prefix="stsdemo-elsewhere-"))
    try:
        scorer = SiameseRegressor(
            embedded_model.encoder, embedded_model.tokenizer, target="cosine", base_model="all-MiniLM-L6-v2"
        )
        scorer.save(folder / "scorer", head_only=True)
        assert (
            main(
                [
                    "score",
                    "a man is playing a guitar.",
                    "a person plays the guitar.",
                    "--model",
                    str(folder / "scorer"),
                ]
            )
            == 0
        )
        score = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert score["prediction"] == pytest.approx(
            5 * score["cosine"], abs=1e-4
        )  # a = 5, b = 0 at the start
    finally:
        shutil.rmtree(folder)
