"""The layout of docs/results.json (bench.schema) against the recorded file, and the bench's use of only the
public helpers of its own modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bench import schema
from bench.common import RESULTS_JSON, load_results, update_results

REPO = Path(__file__).resolve().parent.parent


def test_every_recorded_run_fits_the_schema():
    results = load_results(RESULTS_JSON)
    records = {
        "quality": schema.quality_runs(results),
        "nli": schema.nli_runs(results),
        "fusion": schema.fusion_entries(results),
    }
    for kind, entries in records.items():
        for key, record in entries.items():
            schema.check_record(kind, record)
            assert kind != "nli" or key == schema.run_key(
                schema.record_model(record), record["arm"], record["seed"], record["budget_tag"]
            )
    assert set(results) <= set(schema.SECTIONS)


def test_a_record_with_a_missing_or_unknown_field_is_refused():
    record = next(iter(schema.quality_runs(load_results(RESULTS_JSON)).values()))
    with pytest.raises(ValueError, match=r"missing fields \['test'\]"):
        schema.check_record("quality", {k: v for k, v in record.items() if k != "test"})
    with pytest.raises(ValueError, match=r"unknown fields \['tset'\]"):
        schema.check_record("quality", {**record, "tset": {}})


def test_an_unknown_section_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_OUT", str(tmp_path))
    with pytest.raises(ValueError, match="unknown results section 'qualty'"):
        update_results("qualty", {}, tmp_path / "results.json")
    with pytest.raises(KeyError):
        schema.section({}, "qualty")
    assert schema.quality_runs({}) == {} and schema.record_model({}) == "minilm"


def private_uses(path: Path) -> list[str]:
    """``from X import _name`` and ``module._name`` where ``module`` is one of the project's modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    ours = ("bench", "stsdemo")
    modules, found = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{path.name}:{node.lineno} imports {alias.name}")
                if node.level or (node.module or "").split(".")[0] in ours:
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            modules |= {
                alias.asname or alias.name for alias in node.names if alias.name.split(".")[0] in ours
            }
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.append(f"{path.name}:{node.lineno} uses {node.value.id}.{node.attr}")
    return found


def test_the_bench_uses_only_public_helpers():
    files = sorted((REPO / "bench").glob("*.py")) + sorted((REPO / "tests").glob("*.py"))
    assert [use for path in files for use in private_uses(path)] == []


def test_records_carry_repository_relative_paths_never_the_writers_folders(tmp_path):
    text = RESULTS_JSON.read_text(encoding="utf-8")
    assert str(REPO) not in text and '": "/' not in text, "an absolute path in docs/results.json"
    path = tmp_path / "results.json"
    update_results(
        "quality", {"runs": {"r": {"checkpoint": REPO / "bench" / "out" / "x", "start": str(REPO)}}}, path
    )
    assert load_results(path)["quality"]["runs"]["r"] == {"checkpoint": "bench/out/x", "start": "."}
