"""The command line: help, a real score, and bad input ending in one clear line and exit status 2."""

import json
import subprocess
import sys

import pytest

from stsdemo.cli import main


def run_cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "stsdemo", *args], capture_output=True, text=True, timeout=timeout)


def test_help_lists_the_commands():
    result = run_cli("--help")
    assert result.returncode == 0
    for command in ("train", "eval", "score", "filter"):
        assert command in result.stdout


def test_train_help_shows_every_option():
    result = run_cli("train", "--help")
    for option in ("--loss", "--k", "--x0", "--two-stage", "--layer-decay", "--preset", "--max-steps"):
        assert option in result.stdout


@pytest.mark.parametrize("args, message", [
    (["train", "--x0", "0.7"], "0 <= x0 <= d/2"),
    (["train", "--k", "0"], "slope k must be > 0"),
    (["train", "--lr", "-1"], "learning rate must be > 0"),
    (["train", "--batch-size", "0"], "batch size must be >= 1"),
    (["train", "--loss", "hinge"], "invalid choice"),
    (["train", "--preset", "nope"], "invalid choice"),
    (["train", "--data", "missing.csv", "--max-steps", "1"], "missing.csv"),
    (["train", "--model", "../../etc", "--max-steps", "1"], "outside the allowed folders"),
    (["score", "   ", "a sentence", "--model", ""], "sentence 1 is empty"),
    (["score", "--model", "", "only one"], "give two sentences"),
    (["eval", "--tasks", "STS99"], "unknown task"),
    (["eval", "/etc"], "outside the allowed folders"),
    (["bogus"], "invalid choice"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        sys.exit(main(args))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_score_prints_float_category_and_cosine():
    result = run_cli("score", "a man is playing a guitar.", "a person plays the guitar.", "--model", "")
    assert result.returncode == 0, result.stderr
    score = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(score) == {"prediction", "category", "node", "cosine", "notice"}
    assert 0.6 < score["cosine"] <= 1


def test_exit_code_2_from_a_real_process():
    result = run_cli("train", "--x0", "0.9")
    assert result.returncode == 2 and result.stderr.strip().startswith("stsdemo: error:")
