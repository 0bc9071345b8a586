"""Every record names where it came from by a path that a clone of the repository has.

The record files (docs/results.json, written by bench/ through ``bench.common.portable``, which writes a path inside
the repository relative to it; the app's stsdemo/app/evidence.json and the Playground's
stsdemo/playground/payoff.json, built from it) hold these paths:

* ``source``: the folder of another machine's logs (bench.evidence.merge_runs: docs/runs/<gpu>-<date>), a note in such a
  folder saying the logs were not kept, or the file a record was built from (stsdemo.evidence). bench.perf.speed's
  ``python -m bench.perf.speed on that machine`` names a command, not a path;
* ``log``: ``FILE`` or ``FILE:LINE`` in the folder of the nearest ``source`` above it; where that source is a note,
  the note names the file;
* any other string that is one relative path starting at a top-level entry of the repository (``start``:
  stsdemo/default_scorer). Those under the git-ignored output folder (bench/out: a run's ``checkpoint``) are the
  machine's own outputs, not sources, and are passed over.

No string may point outside the repository (``../``): a clone has nothing there.
"""

from __future__ import annotations

import json
import re

import pytest

from bench.common import OUT_DIR, REPO

RECORD_FILES = ("docs/results.json", "stsdemo/app/evidence.json", "stsdemo/playground/payoff.json")
COMMAND = "python -m "  # a source that names the command run on that machine
OUTPUTS = OUT_DIR.relative_to(REPO).as_posix() + "/"
OUTSIDE = re.compile(r"(?<![\w.])\.\./")  # "../x", not the "..." of "examples/.../sts"
TOP = {path.name for path in REPO.iterdir() if not path.name.startswith(".")}


def _log_problem(log: str, source: str | None) -> str | None:
    name, _, line = log.partition(":")
    if source is None or source.startswith(COMMAND):
        return f"log {log!r} has no source folder above it"
    where = REPO / source
    if where.is_file():
        return (
            None
            if name in where.read_text(encoding="utf-8")
            else f"log {log!r}: the note {source} never names it"
        )
    path = where / name
    if not path.is_file():
        return f"log {log!r}: {source}/{name} does not exist"
    if line and int(line) > len(path.read_text(encoding="utf-8").splitlines()):
        return f"log {log!r}: {source}/{name} has fewer lines"
    return None


def _problem(key: str | None, value: str, source: str | None) -> str | None:
    if OUTSIDE.search(value):
        return f"{value!r} points outside the repository"
    if key == "source":
        return (
            None
            if value.startswith(COMMAND) or (REPO / value).exists()
            else f"source {value!r} does not exist"
        )
    if key == "log":
        return _log_problem(value, source)
    if "/" in value and not any(c.isspace() for c in value) and value.split("/")[0] in TOP:
        if not value.startswith(OUTPUTS) and not (REPO / value).exists():
            return f"{value!r} does not exist"
    return None


def dangling(node, where: str = "", source: str | None = None) -> list[str]:
    """Each path in the JSON value ``node`` that a clone of the repository lacks, with where it is."""
    if isinstance(node, dict):
        if isinstance(node.get("source"), str):
            source = node["source"]
        items = node.items()
    elif isinstance(node, list):
        items = ((None, value) for value in node)
    else:
        return []
    found = []
    for index, (key, value) in enumerate(items):
        place = f"{where}/{key if key is not None else index}"
        if isinstance(value, str):
            problem = _problem(key, value, source)
            found += [f"{place}: {problem}"] if problem else []
        else:
            found += dangling(value, place, source)
    return found


@pytest.mark.parametrize("name", RECORD_FILES)
def test_every_path_a_record_names_exists_in_the_repository(name):
    assert dangling(json.loads((REPO / name).read_text(encoding="utf-8"))) == []


def test_the_gpu_records_cite_their_folders_under_docs_runs():
    machines = json.loads((REPO / "docs" / "results.json").read_text(encoding="utf-8"))["speed"]["machines"]
    assert {machine: found["source"] for machine, found in machines.items()} == {
        "NVIDIA H100 80GB HBM3": "docs/runs/h100-2026-11-27",
        "NVIDIA H200": "docs/runs/h200-2026-11-28/README.md",
    }
    assert "not kept" in (REPO / machines["NVIDIA H200"]["source"]).read_text(encoding="utf-8")


def test_the_check_names_each_kind_of_dangling_path():
    record = {
        "machines": {
            "gone": {"source": "../shared/gpu-runs/gone", "train": {"log": "speed-1.log"}},
            "kept": {
                "source": "docs/runs/h100-2026-11-27",
                "precision": [
                    {"log": "precision-1.log:3"},
                    {"log": "precision-1.log:4"},
                    {"log": "other.log"},
                ],
            },
            "note": {
                "source": "docs/runs/h200-2026-11-28/README.md",
                "train": {"log": "speed-2.log"},
                "eval7": {"log": "speed-9.log"},
            },
            "here": {"source": "python -m bench.perf.speed on that machine", "train": {"device": "GPU"}},
        },
        "run": {
            "checkpoint": "bench/out/checkpoints/minilm/paper/x",
            "start": "stsdemo/default_scorer",
            "model": "docs/nowhere",
            "notes": "prose about examples/.../sts/training.py",
            "key": "minilm/a/b",
        },
    }
    problems = dangling(record)
    assert len(problems) == 6, problems
    for place, words in [
        ("/machines/gone/source", "outside the repository"),
        ("/machines/gone/train/log", "speed-1.log does not exist"),
        ("/machines/kept/precision/1/log", "fewer lines"),
        ("/machines/kept/precision/2/log", "other.log does not exist"),
        ("/machines/note/eval7/log", "never names it"),
        ("/run/model", "'docs/nowhere' does not exist"),
    ]:
        assert any(problem.startswith(place + ":") and words in problem for problem in problems), (
            place,
            problems,
        )
