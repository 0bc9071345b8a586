"""Bad input, table-driven: one row per case, run against every entry point where it applies.

Each row of ``CASES`` names what a user does wrong and the message they must get (a regex: what was wrong and
what is allowed). Its columns say how the case reaches

* ``py``  - the Python function (raises :class:`InputError`, or for an accepted case returns a notice);
* ``cli`` - ``python -m stsdemo`` (one line ``stsdemo: error: ...`` on stderr, exit status 2);
* ``api`` - the app through ``gradio_client`` (an error toast: ``AppError`` with the message).

A column left ``None`` does not apply (the CLI has no gap option, the UI cannot send a pickle). Rows built
with ``ok=True`` are accepted inputs that must work and carry a visible notice. Every case also checks that
nothing else changed: no file appears or changes in the output folder or beside the inputs.

To add a case, add one line to ``CASES``.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from stsdemo import environment
from stsdemo.app.loss_explorer import view as loss_view
from stsdemo.cli import main
from stsdemo.data import load_csv, load_training_data
from stsdemo.errors import InputError
from stsdemo.labels import STS, get_scheme
from stsdemo.losses.buffer import check_buffer
from stsdemo.losses.registry import build_loss
from stsdemo.model import SiameseRegressor
from stsdemo.preflight import preflight
from stsdemo.scoring import score_pair
from stsdemo.train import TrainConfig

STS_CHOICE = "STS 0–5"
CUSTOM_CHOICE = "Custom ordered list"
HEADER = "sentence1,sentence2,label\n"
ETC_RELATIVE = os.path.relpath("/etc")  # "../../etc" here; deeper in a CI clone

# ---- the inputs the cases refer to (built lazily, once per test session) --------------------------------

FILES: dict[str, bytes | Callable[[], bytes]] = {
    "empty.csv": b"",
    "header-only.csv": HEADER.encode(),
    "binary.csv": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00",
    "latin1.csv": (HEADER + "caf\xe9 au lait,tea,1\n").encode("latin-1"),
    "missing-column.csv": b"sentence1,label\nA man plays.,3\n",
    "misnamed-columns.csv": b"sent_a,sent_b,label\nA man plays.,A man is playing.,3\n",
    "nan-label.csv": (HEADER + "A man plays.,A man is playing.,4\nA dog runs.,A cat sleeps.,nan\n").encode(),
    "inf-label.csv": (HEADER + "A man plays.,A man is playing.,inf\n").encode(),
    "range-label.csv": (HEADER + "A man plays.,A man is playing.,7\n").encode(),
    "word-label.csv": (HEADER + "A man plays.,A man is playing.,high\n").encode(),
    "custom-label.csv": (HEADER + "A man plays.,A man is playing.,great\n").encode(),
    "fields.csv": (HEADER + "A man plays.,A man is playing.,3,extra\n").encode(),
    "control-cell.csv": (HEADER + "\x01\x02,A man is playing.,3\n").encode(),
    "huge-field.csv": lambda: (HEADER + "A" * 200_000 + ",b,3\n").encode(),
    "million-rows.csv": lambda: HEADER.encode() + b"a,b,3\n" * 1_000_001,  # 6 MB
    "2kb.csv": HEADER.encode() + b"x" * (2048 - len(HEADER)),
    "good.csv": (HEADER + "A man plays.,A man is playing.,4\nA dog runs.,A cat sleeps.,1\n").encode(),
}


DAMAGES = (
    "pickle-bin",
    "pickle-as-safetensors",
    "pickle-head",
    "truncated",
    "truncated-head",
    "missing-tensors",
    "bad-config",
    "bad-hf-config",
)


class Inputs:
    """Paths of the files and damaged checkpoints the cases use, made on first use."""

    def __init__(self, root: Path, model: SiameseRegressor):
        self.root, self.model = root, model
        self.out = root / "never-written" / "scored.csv"  # a case must never create it

    def file(self, name: str) -> str:
        path = self.root / "files" / name
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            content = FILES[name]
            path.write_bytes(content() if callable(content) else content)
        return str(path)

    def folder(self, name: str) -> str:
        """An empty folder (not a model) inside the allowed roots."""
        path = self.root / "folders" / name
        path.mkdir(parents=True, exist_ok=True)
        return str(path)

    def prepare(self) -> Inputs:
        """Make every file and checkpoint now, so a case's snapshot sees only what the case itself does."""
        for name in FILES:
            self.file(name)
        for damage in DAMAGES:
            self.checkpoint(damage)
        self.folder("not-a-model")
        return self

    def missing(self) -> str:
        return str(self.root / "no-such-checkpoint")

    def checkpoint(self, damage: str) -> str:
        """A saved run with one thing wrong (``damage``); unchanged files are hard links to a good one."""
        good = self.root / "checkpoints" / "good"
        if not good.exists():
            self.model.save(good)
        path = self.root / "checkpoints" / damage
        if path.exists():
            return str(path)
        staging = path.with_name(path.name + ".tmp")
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(good, staging, copy_function=os.link)
        weights, head = staging / "model.safetensors", staging / "head.safetensors"
        if damage == "pickle-bin":  # the classic pickled checkpoint: .bin and no safetensors at all
            weights.unlink()
            head.unlink()
            torch.save({"weight": torch.zeros(2)}, staging / "pytorch_model.bin")
        elif damage == "pickle-as-safetensors":
            weights.unlink()
            torch.save({"weight": torch.zeros(2)}, weights)
        elif damage == "pickle-head":
            head.unlink()
            torch.save({"weight": torch.zeros(2)}, head)
        elif damage in ("truncated", "truncated-head"):
            target = weights if damage == "truncated" else head
            data = target.read_bytes()
            target.unlink()
            target.write_bytes(data[: len(data) // 2])
        elif damage == "missing-tensors":  # a valid safetensors file without the encoder's weights
            from safetensors.torch import save_file

            weights.unlink()
            save_file({"unrelated": torch.zeros(1)}, str(weights))
        elif damage == "bad-config":
            (staging / "stsdemo.json").unlink()
            (staging / "stsdemo.json").write_text("{ not json", encoding="utf-8")
        elif damage == "bad-hf-config":
            (staging / "config.json").unlink()
            (staging / "config.json").write_text("{ not json", encoding="utf-8")
        else:
            raise KeyError(damage)
        staging.rename(path)
        return str(path)


# ---- the table ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    name: str
    expect: str  # regex: the error message (or, with ok=True, the notice)
    py: Callable[[Inputs], object] | None
    cli: Callable[[Inputs], list] | None = None  # argv of ``python -m stsdemo``
    api: Callable[[Inputs], tuple] | None = None  # (api_name, positional args)
    ok: bool = False
    api_expect: str | None = None  # where the app's own input check words it differently

    @property
    def api_message(self) -> str:
        return self.api_expect or self.expect


def _score_args(model, s1, s2, scheme=STS_CHOICE, custom="", gap=1.0):
    return ("/score", [model, s1, s2, scheme, custom, gap, None])


def _file(path):
    from gradio_client import handle_file

    return handle_file(path)


def _train_api(**overrides):
    from app_fixtures import train_args

    return ("/train", train_args(**overrides))


def sentences(name, s1, s2, expect, ok=False, api=True):
    """Scoring a pair: score_pair, ``stsdemo score S1 S2``, the /score endpoint."""
    return Case(
        name,
        expect,
        lambda c: score_pair(c.model, s1, s2),
        lambda c: ["score", s1, s2, "--model", ""],
        (lambda c: _score_args("default", s1, s2)) if api else None,
        ok,
    )


def csv_to_score(name, file, expect, py=None):
    """A file of pairs to score: load_csv, ``stsdemo score --csv``, the /score_file endpoint."""
    return Case(
        name,
        expect,
        py or (lambda c: load_csv(c.file(file), STS)),
        lambda c: ["score", "--csv", c.file(file), "--out", str(c.out), "--model", ""],
        lambda c: ("/score_file", ["default", _file(c.file(file)), STS_CHOICE, "", 1.0]),
    )


def csv_to_train(name, file, scheme, expect):
    """A training file with its label scheme: load_training_data, ``stsdemo train --data``, /train upload."""
    return Case(
        name,
        expect,
        lambda c: load_training_data(c.file(file), get_scheme(scheme)),
        lambda c: [*TRAIN_SAFE(c), "--data", c.file(file), "--scheme", scheme],
        lambda c: _train_api(data="Upload CSV / TSV", upload=_file(c.file(file)), scheme=scheme),
    )


def buffer(name, k, x0, d, expect, cli=True, api=True, api_expect=None):
    """Loss settings: check_buffer, ``stsdemo train --k --x0`` (d is fixed at 1 there), /loss_at."""
    return Case(
        name,
        expect,
        lambda c: check_buffer(k, x0, d),
        (lambda c: [*TRAIN_SAFE(c), "--k", str(k), "--x0", str(x0)]) if cli else None,
        (lambda c: ("/loss_at", [3.6, 3.0, k, x0, d])) if api else None,
        api_expect=api_expect,
    )


def setting(name, field, value, expect, api=True, api_expect=None):
    """A training setting: preflight (TrainConfig.validate, then its model), ``stsdemo train --<field>``, the /train
    endpoint."""
    flag = "--" + field.replace("_", "-")
    return Case(
        name,
        expect,
        lambda c: preflight(TrainConfig(**{**SAFE, field: value})),
        lambda c: [*TRAIN_SAFE(c), flag, str(value)],
        (lambda c: _train_api(**{field: value})) if api else None,
        api_expect=api_expect,
    )


def model(name, where, expect, api=True, api_expect=None):
    """A model to load: SiameseRegressor.load, ``stsdemo score --model``, the /score endpoint's model box."""
    return Case(
        name,
        expect,
        lambda c: SiameseRegressor.load(where(c)),
        lambda c: ["score", "A man plays.", "A man is playing.", "--model", where(c)],
        (lambda c: _score_args(where(c), "A man plays.", "A man is playing.")) if api else None,
        api_expect=api_expect,
    )


def scheme(name, text, expect):
    """A label scheme: get_scheme, ``stsdemo score --scheme``, the /score endpoint's custom list."""
    return Case(
        name,
        expect,
        lambda c: get_scheme(text),
        lambda c: ["score", "A man plays.", "A man is playing.", "--model", "", "--scheme", text],
        lambda c: _score_args("default", "A man plays.", "A man is playing.", CUSTOM_CHOICE, text),
    )


# A training run that would be tiny and harmless if a case were wrongly accepted (it then fails the test).
SAFE = dict(max_steps=1, max_pairs=8, eval_every=1000, max_length=32, data="stsb")


def TRAIN_SAFE(c):  # noqa: N802 - reads like a constant in the table
    return [
        "train",
        "--max-steps",
        "1",
        "--max-pairs",
        "8",
        "--eval-every",
        "1000",
        "--max-length",
        "32",
        "--data",
        "stsb",
        "--no-final-eval",
        "--output-dir",
        str(c.root / "never-trained"),
    ]


EMPTY = r"sentence 1 is empty; type a sentence with at least one visible character"


def below(label, minimum):
    """The app's component check (Gradio's Number/Slider bounds, named by the field), which runs first."""
    return rf"(?i)^{label}: Value -?[\d.e+]+ is less than minimum value {minimum}"


def above(label, maximum):
    return rf"(?i)^{label}: Value -?[\d.e+]+ is greater than maximum value {maximum}"


LONG = "A man is playing a guitar on the stage. " * 2500  # 100,000 characters
NO_FOLDERS = r"\([^/]*\); add a folder with STSDEMO_MODEL_ROOTS$"  # the server's folders are not named

CASES = [
    # -- sentences --------------------------------------------------------------------------------------------
    sentences("empty sentence", "", "A man is playing.", EMPTY),
    sentences("whitespace-only sentence", " \t\n  ", "A man is playing.", EMPTY),
    sentences("control characters only", "\x00\x07\x1b\x7f", "A man is playing.", EMPTY),
    sentences("zero-width characters only", "\u200b\u200d\ufeff", "A man is playing.", EMPTY),
    sentences(
        "100,000-character sentence",
        LONG,
        "A man is playing.",
        r"cut to its first 20,000 characters",
        ok=True,
    ),
    sentences(
        "control characters, emoji and RTL",
        "A man\x00 plays 🎸 \u202bשלום\u202c",
        "رجل يعزف",
        r"1 control character removed",
        ok=True,
    ),
    sentences(
        "right-to-left only", "رجل يعزف على الجيتار", "איש מנגן בגיטרה", r"^(?!.*(control|cut))", ok=True
    ),
    sentences("emoji only", "🎸🎶", "😀", r"^(?!.*(control|cut))", ok=True),
    sentences(
        "lone surrogate",
        "\ud800A man plays.",
        "A man is playing.",
        r"1 control character removed",
        ok=True,
        api=False,
    ),  # JSON over HTTP cannot carry a lone surrogate
    Case(
        "sentence that is not text",
        r"sentence 1 must be text, got int",
        lambda c: score_pair(c.model, 42, "x"),
    ),
    # -- files of pairs ---------------------------------------------------------------------------------------
    csv_to_score("empty file", "empty.csv", r"is empty; expected a header row and sentence pairs"),
    csv_to_score("header but no rows", "header-only.csv", r"has a header but no sentence pairs"),
    csv_to_score("binary file", "binary.csv", r"looks binary; expected a UTF-8 CSV or TSV text file"),
    csv_to_score("not UTF-8", "latin1.csv", r"is not UTF-8 text .*save it as UTF-8"),
    csv_to_score(
        "missing sentence column",
        "missing-column.csv",
        r"no pair of sentence columns.*Accepted pairs: sentence1/sentence2",
    ),
    csv_to_score(
        "misnamed columns",
        "misnamed-columns.csv",
        r"columns found: 'sent_a', 'sent_b', 'label'.*Accepted pairs",
    ),
    csv_to_score(
        "NaN label",
        "nan-label.csv",
        r"row 2: label 'nan' is not a finite number; expected a number in \[0, 5\]",
    ),
    csv_to_score(
        "infinite label",
        "inf-label.csv",
        r"row 1: label 'inf' is not a finite number; expected a number in \[0, 5\]",
    ),
    csv_to_score("label out of range", "range-label.csv", r"row 1: label '7' is outside \[0, 5\]"),
    csv_to_score(
        "non-numeric label",
        "word-label.csv",
        r"row 1: label 'high' is not a number in \[0, 5\] or one of: 0, 1",
    ),
    csv_to_score("row with an extra field", "fields.csv", r"row 1: 4 fields but the header has 3"),
    csv_to_score(
        "cell of control characters", "control-cell.csv", r"row 1: empty sentence; sentence 1 is empty"
    ),
    csv_to_score(
        "200,000-character field",
        "huge-field.csv",
        r"a field is longer than 131,072 characters; sentences may have up to 20,000",
    ),
    csv_to_score(
        "a million rows", "million-rows.csv", r"has more than \d+ rows; the limit is \d+ rows per file"
    ),
    Case(
        "file over the byte limit",
        r"is 2\.0 KB; the limit is 1\.0 KB per file",
        lambda c: load_csv(c.file("2kb.csv"), STS, max_bytes=1024),
    ),
    # -- label schemes ----------------------------------------------------------------------------------------
    scheme(
        "scheme with one category",
        "good,",
        r"needs at least 2 ordered categories, got 1 \('good'\).*e\.g\. 'bad, fair, good'",
    ),
    scheme("scheme without commas", "good", r"comma"),
    scheme("scheme with a repeated category", "bad, bad", r"categories must be distinct"),
    csv_to_train(
        "training file, one-category scheme", "good.csv", "good,", r"needs at least 2 ordered categories"
    ),
    csv_to_train(
        "training labels outside the scheme",
        "custom-label.csv",
        "bad, good",
        r"row 1: label 'great' is not a number in \[0, 1\] or one of: bad, good",
    ),
    csv_to_train("training file that is binary", "binary.csv", "sts", r"looks binary"),
    csv_to_train(
        "training file with NaN labels", "nan-label.csv", "sts", r"row 2: label 'nan' is not a finite number"
    ),
    # -- loss settings ----------------------------------------------------------------------------------------
    buffer("k = 0", 0, 0.25, 1.0, r"slope k must be > 0"),
    buffer("k < 0", -1, 0.25, 1.0, r"slope k must be > 0"),
    buffer(
        "k not a number", float("nan"), 0.25, 1.0, r"slope k must be a finite number", api=False
    ),  # no NaN in JSON
    buffer("k huge", 1e9, 0.25, 1.0, r"slope k must be > 0 and <= 1000"),
    buffer(
        "x0 < 0",
        2.0,
        -0.1,
        1.0,
        r"0 <= x0 <= d/2 = 0.5, got -0.1: x0 is the half-width .* cannot be negative$",
    ),
    buffer("x0 > d/2", 2.0, 0.6, 1.0, r"0 <= x0 <= d/2 = 0.5, got 0.6.*zero gradient"),
    buffer("x0 not a number", 2.0, float("nan"), 1.0, r"buffer x0 must be a finite number", api=False),
    buffer("d = 0", 2.0, 0.25, 0.0, r"gap d must be > 0", cli=False),
    buffer("d < 0", 2.0, 0.25, -1.0, r"gap d must be > 0", cli=False),
    Case(
        "unknown loss",
        r"unknown loss 'hinge'; choose one of: sk2|invalid choice: 'hinge'",
        lambda c: build_loss("hinge"),
        lambda c: [*TRAIN_SAFE(c), "--loss", "hinge"],
        lambda c: _train_api(loss="hinge"),
        api_expect=r"^Loss: Value: hinge is not in the list of choices: .*\[sk2\]",
    ),
    # -- training settings ------------------------------------------------------------------------------------
    setting("learning rate 0", "lr", 0.0, r"learning rate must be > 0 and <= 1"),
    setting("learning rate 5", "lr", 5.0, r"learning rate must be > 0 and <= 1"),
    setting("learning rate NaN", "lr", float("nan"), r"learning rate must be a finite number", api=False),
    setting(
        "batch size 0",
        "batch_size",
        0,
        r"batch size must be >= 1 and <= \d+",
        api_expect=below("batch size", 1),
    ),
    setting("batch size 100,000", "batch_size", 100_000, r"batch size must be >= 1 and <= \d+"),
    setting(
        "batch size 2.5",
        "batch_size",
        2.5,
        r"batch size must be a whole number|invalid int value: '2.5'",
        api_expect=r"^Batch size: must be a whole number, got 2.5",
    ),
    setting("max steps < 1", "max_steps", -5, r"max steps must be >= 1", api_expect=below("max steps", 0)),
    setting("max steps 10^9", "max_steps", 10**9, r"max steps must be >= 1 and <= 10000000"),
    setting(
        "max length 4",
        "max_length",
        4,
        r"max length must be >= 8 and <= 8192",
        api_expect=below("max length", 8),
    ),
    setting("max length 100,000", "max_length", 100_000, r"max length must be >= 8 and <= 8192"),
    setting(
        "max length past the model's 512",
        "max_length",
        1024,
        r"max length 1024 is more than this model takes \(512 tokens\); allowed: 8 to 512",
    ),
    setting("epochs 0", "epochs", 0.0, r"epochs must be > 0 and <= 100", api_expect=below("epochs", 0.01)),
    setting("warmup 2", "warmup", 2.0, r"warmup must be >= 0 and <= 1", api=False),  # not a field of the form
    setting("eval every 0", "eval_every", 0, r"eval every must be >= 1", api_expect=below("eval every", 1)),
    setting("negative seed", "seed", -1, r"seed must be >= 0", api_expect=below("seed", 0)),
    # -- models and checkpoints -------------------------------------------------------------------------------
    model(
        "hub id that does not exist (offline)",
        lambda c: "no-such-org/no-such-model",
        r"could not load model 'no-such-org/no-such-model': .*Allowed: the default model",
    ),
    # The allowed-folders rule guards the public app; locally (Python, CLI) every path is the user's own.
    # A relative path that climbs to /etc from wherever the suite runs (CI clones sit at other depths).
    model(
        "path outside the allowed folders",
        lambda c: ETC_RELATIVE,
        r"folder '/etc' is not a model: it has no config.json",
        api_expect=rf"model path '{re.escape(ETC_RELATIVE)}' is outside the allowed folders {NO_FOLDERS}",
    ),
    model(
        "absolute path outside",
        lambda c: "/etc",
        r"folder '/etc' is not a model: it has no config.json",
        api_expect=rf"model path '/etc' is outside the allowed folders {NO_FOLDERS}",
    ),
    model(
        "folder that is not a model",
        lambda c: c.folder("not-a-model"),
        r"is not a model: it has no config.json",
    ),
    model("checkpoint folder that does not exist", lambda c: c.missing(), r"model folder .* does not exist"),
    model(
        "pickled checkpoint (.bin)",
        lambda c: c.checkpoint("pickle-bin"),
        r"has no .safetensors weights; only safetensors are loaded",
    ),
    model(
        "pickle renamed to .safetensors",
        lambda c: c.checkpoint("pickle-as-safetensors"),
        r"weights file is damaged or not a safetensors file",
    ),
    model(
        "pickled head", lambda c: c.checkpoint("pickle-head"), r"head weights in .* are missing or damaged"
    ),
    model(
        "truncated encoder weights",
        lambda c: c.checkpoint("truncated"),
        r"weights file is damaged or not a safetensors file",
    ),
    model(
        "truncated head",
        lambda c: c.checkpoint("truncated-head"),
        r"head weights in .* are missing or damaged",
    ),
    model(
        "weights file without the encoder",
        lambda c: c.checkpoint("missing-tensors"),
        r"is incomplete or damaged: \d+ encoder weights are missing",
    ),
    model(
        "unreadable stsdemo.json", lambda c: c.checkpoint("bad-config"), r"is not a readable stsdemo config"
    ),
    model(
        "unreadable config.json", lambda c: c.checkpoint("bad-hf-config"), r"could not load model .*Allowed"
    ),
    # -- the app's own endpoints ------------------------------------------------------------------------------
    Case(
        "loss at a point too far out",
        r"prediction must be >= -1000000.0 and <= 1000000.0, got 1e\+200",
        lambda c: loss_view.loss_at(1e200, 0.0),
        api=lambda c: ("/loss_at", [1e200, 0.0]),
    ),  # MSE: Infinity
    Case(
        "label too far out",
        r"label must be >= -1000000.0 and <= 1000000.0",
        lambda c: loss_view.loss_at(0.0, -1e9),
        api=lambda c: ("/loss_at", [0.0, -1e9, 2.0, 0.25, 1.0]),
    ),
    Case(
        "unknown label scheme in the form",
        r"^Label scheme: Value: 'nope' is not in the list of choices: \[\"The model's own\"",
        None,
        api=lambda c: _score_args("default", "A man plays.", "A man is playing.", scheme="nope"),
    ),
    Case(
        "negative gap in the form",
        below("gap d", 0.01),
        None,
        api=lambda c: _score_args(
            "default", "A man plays.", "A man is playing.", CUSTOM_CHOICE, "bad, good", -1.0
        ),
    ),
    Case(
        "download of a run that is not there",
        r"^no run 'no-such-run' in this session",
        None,
        api=lambda c: ("/zip_run", ["run:no-such-run"]),
    ),
]


def _ids(cases):
    return [case.name for case in cases]


PY_CASES = [case for case in CASES if case.py]
CLI_CASES = [case for case in CASES if case.cli]
API_CASES = [case for case in CASES if case.api]


def test_the_table_covers_every_entry_point():
    assert len({case.name for case in CASES}) == len(CASES), "case names must be unique"
    assert len(PY_CASES) >= 60 and len(CLI_CASES) >= 50 and len(API_CASES) >= 45


# ---- shared checks -------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def inputs(tmp_path_factory, embedded_model):
    return Inputs(tmp_path_factory.getbasetemp() / "bad-input", embedded_model).prepare()


def snapshot(*folders: Path) -> dict:
    """Every file under ``folders`` with its size and modification time."""
    state = {}
    for folder in folders:
        for path in Path(folder).rglob("*") if Path(folder).exists() else ():
            if path.is_file():
                stat = path.stat()
                state[str(path)] = (stat.st_size, stat.st_mtime_ns)
    return state


def check_message(message: str, case: Case, expect: str | None = None) -> None:
    expect = expect or case.expect
    assert "Traceback" not in message and "\n" not in message.strip(), message
    assert re.search(expect, message), f"{case.name}: {message!r} does not match {expect!r}"


def check_unchanged(before: dict, after: dict, inputs: Inputs) -> None:
    assert after == before, f"files changed: {sorted(set(after) ^ set(before)) or 'modified in place'}"
    assert not inputs.out.exists() and not (inputs.root / "never-trained").exists()


# ---- column 1: the Python functions --------------------------------------------------------------------------


@pytest.mark.parametrize("case", PY_CASES, ids=_ids(PY_CASES))
def test_python(case, inputs):
    watched = (environment.output_dir(), inputs.root)
    before = snapshot(*watched)
    if case.ok:
        result = case.py(inputs)
        assert math.isfinite(result.prediction) and -1 <= result.cosine <= 1
        assert re.search(case.expect, result.notice), f"{case.name}: notice {result.notice!r}"
    else:
        with pytest.raises(InputError) as error:
            case.py(inputs)
        check_message(str(error.value), case)
    check_unchanged(before, snapshot(*watched), inputs)


# ---- column 2: the command line ------------------------------------------------------------------------------


@pytest.fixture
def cached_default_model(monkeypatch, embedded_model):
    """``--model ""`` gets the session's embedded model instead of loading it again (checkpoints load for real)."""
    real_load = SiameseRegressor.load.__func__

    def load(cls, name=None):
        return embedded_model if not str(name or "").strip() else real_load(cls, name)

    monkeypatch.setattr(SiameseRegressor, "load", classmethod(load))


@pytest.mark.parametrize("case", CLI_CASES, ids=_ids(CLI_CASES))
def test_cli(case, inputs, capsys, cached_default_model):
    argv = case.cli(inputs)
    watched = (environment.output_dir(), inputs.root)
    before = snapshot(*watched)
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's own errors (invalid choice, not an int)
        code = exit_.code
    out, err = capsys.readouterr()
    if case.ok:
        assert code == 0, err
        notice = json.loads(out.strip().splitlines()[-1])["notice"]
        assert re.search(case.expect, notice), f"{case.name}: notice {notice!r}"
    else:
        assert code == 2, f"{case.name}: exit {code}, stderr {err!r}"
        assert re.match(r"stsdemo( \w+)?: error: ", err) and len(err.strip().splitlines()) == 1, err
        check_message(err, case)
    check_unchanged(before, snapshot(*watched), inputs)


# ---- column 3: the app's API (gradio_client) -----------------------------------------------------------------

from app_fixtures import app_state, app_url, client  # noqa: E402,F401  (pytest fixtures: the app in this process)


@pytest.mark.parametrize("case", API_CASES, ids=_ids(API_CASES))
def test_api(case, inputs, client, capfd):  # noqa: F811
    from gradio_client.exceptions import AppError

    from stsdemo.serving import session_files as runs

    capfd.readouterr()
    api_name, args = case.api(inputs)
    watched = (environment.output_dir() / "sessions", inputs.root)
    before, runs_before = snapshot(*watched), len(runs.list_runs(client.session_hash))
    if case.ok:
        prediction, category, node, cosine, figure, notice = client.predict(*args, api_name=api_name)
        assert math.isfinite(prediction) and -1 <= cosine <= 1
        assert re.search(case.expect, notice or ""), f"{case.name}: notice {notice!r}"
    else:
        with pytest.raises(AppError) as error:
            client.predict(*args, api_name=api_name)
        check_message(str(error.value), case, case.api_message)
    assert len(runs.list_runs(client.session_hash)) == runs_before, "a run was recorded for bad input"
    check_unchanged(before, snapshot(*watched), inputs)
    assert "Traceback" not in capfd.readouterr().err, "a refused input put a traceback in the server log"


def _rest(app_url: str, name: str, data: list) -> tuple[int, str]:
    """A raw REST call (no gradio_client): POST /gradio_api/call/<name>, then its result stream."""
    import urllib.error
    import urllib.request

    base = app_url.rstrip("/") + f"/gradio_api/call/{name}"
    request = urllib.request.Request(
        base, json.dumps({"data": data}).encode(), {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            event = json.loads(response.read())["event_id"]
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())["detail"]
    with urllib.request.urlopen(f"{base}/{event}", timeout=60) as response:
        return 200, response.read().decode()


def test_optional_arguments_are_optional_over_raw_rest(app_url, capfd):  # noqa: F811
    capfd.readouterr()
    status, stream = _rest(app_url, "loss_at", [3.6, 3])
    assert status == 200 and "event: complete" in stream, stream
    answer = json.loads(json.loads(stream.split("data: ", 1)[1].splitlines()[0])[0])
    assert (answer["k"], answer["x0"], answer["d"]) == (
        loss_view.START["k"],
        loss_view.START["x0"],
        loss_view.START["d"],
    )
    status, message = _rest(app_url, "loss_at", [3.6])
    assert (
        status == 422
        and message
        == "/loss_at needs label: it takes prediction, label, [k], [x0], [d] (in brackets: optional)"
    )
    assert "Traceback" not in capfd.readouterr().err


# ---- safety: no code from models, no pickles ------------------------------------------------------------------


def test_remote_code_runs_only_for_models_on_the_operators_allow_list(monkeypatch):
    from stsdemo.model_source import resolve_model

    monkeypatch.setenv("STSDEMO_TRUST_REMOTE_CODE", "acme/trusted-model")
    assert resolve_model("acme/trusted-model") == ("acme/trusted-model", True)
    assert resolve_model("acme/other-model") == ("acme/other-model", False)
    monkeypatch.setenv("STSDEMO_TRUST_REMOTE_CODE", "")
    assert resolve_model("jinaai/jina-embeddings-v2-small-en")[1] is False  # the operator emptied the list


def test_a_model_folder_with_its_own_code_is_refused_without_running_it(tmp_path):
    marker = tmp_path / "code-ran"
    folder = tmp_path / "custom-code-model"
    folder.mkdir()
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        shutil.copy(environment.default_model_path() / name, folder / name)
    (folder / "evil.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    (folder / "config.json").write_text(
        json.dumps(
            {
                "model_type": "evil",
                "architectures": ["EvilModel"],
                "auto_map": {"AutoConfig": "evil.EvilConfig", "AutoModel": "evil.EvilModel"},
            }
        )
    )
    from safetensors.torch import save_file

    save_file({"weight": torch.zeros(1)}, str(folder / "model.safetensors"))
    with pytest.raises(InputError, match=r"custom-code-model.*needs to run its own code.*allow-list"):
        SiameseRegressor.load(str(folder))
    assert not marker.exists(), "the folder's own code was executed"


def test_a_fields_own_check_names_it_in_every_copy_of_the_field():
    """Gradio rebuilds a session's components when an event updates them (a link restored at page load does):
    the check that names the field must hold for a component built after the app, not only for the app's own."""
    import gradio as gr

    from stsdemo.serving.gradio_seam import name_input_errors

    name_input_errors()
    name_input_errors()  # once per process: no label twice
    rebuilt = gr.Number(label="Batch size", minimum=1, precision=0)
    with pytest.raises(gr.Error, match=r"^'Batch size: Value 0 is less than minimum value 1"):
        rebuilt.preprocess(0)
    with pytest.raises(gr.Error, match=r"^'Batch size: must be a whole number, got 2.5'$"):
        rebuilt.preprocess(2.5)
    with pytest.raises(gr.Error, match=r"^'Node gap d: Value 3 is greater than maximum value 2"):
        gr.Slider(0.2, 2, label="Node gap d").preprocess(3)
    assert gr.Number(label="Batch size", minimum=1, precision=0).preprocess(4) == 4
