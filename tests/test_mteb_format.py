"""MTEB-format results (stsdemo.mteb_format): the files written from a 7-task result dict, read back as JSON and,
where the ``mteb`` package is installed, through mteb's own loaders (TaskResult, ResultCache, ModelMeta); the
model's metadata for the default, a saved scorer and a cached hub model; bad ``--mteb-out`` paths; the app's zip."""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from tiny_models import tiny_encoder

from stsdemo import environment, mteb_format
from stsdemo.cli import main
from stsdemo.errors import InputError

# A fake evaluation: Spearman x100 as evaluate_senteval returns it, and the test pairs each task had.
COSINE = {"STS12": 72.37, "STS16": 78.98945301358717, "SICKRelatedness": 77.58, "Avg.": 76.3}
PAIRS = {"STS12": 3108, "STS16": 1186, "SICKRelatedness": 4927}
TASK_KEYS = {
    "dataset_revision",
    "task_name",
    "mteb_version",
    "scores",
    "evaluation_time",
    "kg_co2_emissions",
    "date",
    "evaluation_phases",
    "stsdemo_provenance",
}
DEFAULT_FOLDER = "sentence-transformers__all-MiniLM-L6-v2/no_revision_available"


def written(tmp_path: Path, name: str = "") -> Path:
    """The fake evaluation written as MTEB results under ``tmp_path/results`` (MTEB's cache layout)."""
    return mteb_format.write_mteb_results(tmp_path / "results", mteb_format.mteb_files(name, COSINE, PAIRS))


def test_one_file_per_task_under_its_mteb_name_with_scores_as_fractions(tmp_path):
    folder = written(tmp_path)
    assert folder == tmp_path / "results" / DEFAULT_FOLDER
    assert sorted(p.name for p in folder.iterdir()) == [
        "SICK-R.json",
        "STS12.json",
        "STS16.json",
        "model_meta.json",
    ]
    result = json.loads((folder / "STS16.json").read_text(encoding="utf-8"))
    assert set(result) == TASK_KEYS
    assert (result["task_name"], result["dataset_revision"]) == (
        "STS16",
        "4d8694f8f0e0100860b497b999b3dbed754a0513",
    )
    [entry] = result["scores"]["test"]
    assert entry["cosine_spearman"] == entry["main_score"] == 0.789895  # x100 -> fraction, 6 decimals as MTEB
    assert (entry["hf_subset"], entry["languages"]) == ("default", ["eng-Latn"])
    assert not {"cosine_pearson", "euclidean_spearman", "manhattan_spearman"} & set(
        entry
    )  # never measured here
    assert result["evaluation_time"] is None and result["date"] is None


def test_the_provenance_says_senteval_data_and_flags_sick_r_as_not_comparable(tmp_path):
    folder = written(tmp_path)
    sts12 = json.loads((folder / "STS12.json").read_text(encoding="utf-8"))["stsdemo_provenance"]
    sick = json.loads((folder / "SICK-R.json").read_text(encoding="utf-8"))["stsdemo_provenance"]
    assert "SentEval" in sts12["data"] and "not the mteb package" in sts12["evaluated_by"]
    assert (sts12["pairs"], sts12["mteb_pairs"]) == (3108, 3108) and "as many" in sts12["comparison"]
    assert (sick["pairs"], sick["mteb_pairs"]) == (4927, 9927) and "not directly comparable" in sick[
        "comparison"
    ]


def test_nothing_to_write_is_refused():
    with pytest.raises(InputError, match="no results of the 7 tasks"):
        mteb_format.mteb_files("", {"Avg.": 70.0}, PAIRS)


def test_mteb_loads_the_files_with_its_own_loaders(tmp_path):
    """TaskResult.from_disk reads every key MTEB writes back unchanged, and ResultCache finds the model and its
    scores by MTEB's task names."""
    pytest.importorskip("mteb")
    from mteb import ResultCache
    from mteb.results import TaskResult

    folder = written(tmp_path)
    payload = json.loads((folder / "SICK-R.json").read_text(encoding="utf-8"))
    loaded = TaskResult.from_disk(folder / "SICK-R.json")
    assert loaded.to_dict() == {k: v for k, v in payload.items() if k != "stsdemo_provenance"}
    assert loaded.get_score() == pytest.approx(0.7758)
    results = ResultCache(tmp_path).load_results(
        models=[mteb_format.DEFAULT_ENCODER],
        tasks=["STS12", "SICK-R"],
        include_remote=False,
        validate_and_filter=True,
    )
    [model] = results.model_results
    assert (model.model_name, model.model_revision) == (mteb_format.DEFAULT_ENCODER, mteb_format.NO_REVISION)
    assert {t.task_name: t.get_score() for t in model.task_results} == pytest.approx(
        {"STS12": 0.7237, "SICK-R": 0.7758}
    )


@pytest.mark.filterwarnings("ignore:is_cross_encoder is deprecated")  # a key mteb's own to_dict writes
def test_model_meta_is_what_mtebs_model_meta_writes():
    """mteb's ModelMeta forbids unknown fields and checks each; dumped again it gives the same file."""
    pytest.importorskip("mteb")
    from mteb.models import ModelMeta

    for name in ("", str(environment.default_scorer_dir())):
        meta = mteb_format.model_meta(name)
        assert ModelMeta.model_validate(dict(meta)).to_dict() == meta


def test_model_meta_of_the_default_and_of_a_saved_scorer():
    default = mteb_format.model_meta("")
    assert (default["name"], default["revision"], default["embed_dim"]) == (
        mteb_format.DEFAULT_ENCODER,
        "no_revision_available",
        384,
    )
    assert default["similarity_fn_name"] == "cosine" and default["n_parameters"] is None  # unknown stays null
    scorer = mteb_format.model_meta(str(environment.default_scorer_dir()), label="my run (x0=0.25)")
    assert scorer["name"] == "local/my run (x0=0.25)"
    assert scorer["adapted_from"] == mteb_format.DEFAULT_ENCODER and scorer["max_tokens"] == 256.0
    assert mteb_format.model_folder(scorer) == "local__my_run__x0_0.25_/no_revision_available"


def test_a_cached_hub_model_gets_its_snapshot_revision(tmp_path, monkeypatch):
    from huggingface_hub import constants

    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "models--someone--encoder"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    (repo / "snapshots" / commit).mkdir(parents=True)
    (repo / "snapshots" / commit / "config.json").write_text(json.dumps({"hidden_size": 768}))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    meta = mteb_format.model_meta("someone/encoder")
    assert (meta["name"], meta["revision"], meta["embed_dim"]) == ("someone/encoder", commit, 768)
    assert meta["reference"] == "https://huggingface.co/someone/encoder"
    assert mteb_format.model_folder(meta) == f"someone__encoder/{commit}"


@pytest.mark.parametrize("where, message", [("a-file", "is a file"), ("a-file/below", "cannot be created")])
def test_a_bad_mteb_out_is_one_line_and_exit_2(tmp_path, capsys, where, message):
    (tmp_path / "a-file").write_text("not a folder")
    with pytest.raises(SystemExit) as exit_info:
        sys.exit(main(["eval", "--tasks", "STS16", "--mteb-out", str(tmp_path / where)]))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_the_app_zips_the_cached_results_of_the_chosen_model(tmp_path, monkeypatch):
    """The Benchmark tab's download: the results the evaluation cached (a fake entry in a private cache), zipped
    in the session's download folder; a model not evaluated yet is refused."""
    import shutil

    from stsdemo.app import model_cache
    from stsdemo.app.benchmark import view as benchmark_view
    from stsdemo.serving import session_files

    monkeypatch.setenv("STSDEMO_CACHE_DIR", str(tmp_path / "cache"))
    session = "mteb-format-test"
    fake_state = SimpleNamespace(test_sets=lambda: {task: range(count) for task, count in PAIRS.items()})
    with pytest.raises(InputError, match="evaluate all-MiniLM-L6-v2 on the 7 tasks first"):
        benchmark_view.mteb_zip(fake_state, session, model_cache.DEFAULT_CHOICE)
    model_cache.result_cache().put("", COSINE)
    try:
        archive = benchmark_view.mteb_zip(fake_state, session, model_cache.DEFAULT_CHOICE)
        assert archive.parent == session_files.downloads_dir(session)
        with zipfile.ZipFile(archive) as opened:
            names = sorted(opened.namelist())
            sick = json.loads(opened.read(f"{DEFAULT_FOLDER}/SICK-R.json"))
    finally:
        shutil.rmtree(session_files.downloads_root() / session, ignore_errors=True)
    assert names == [
        f"{DEFAULT_FOLDER}/{n}" for n in ("SICK-R.json", "STS12.json", "STS16.json", "model_meta.json")
    ]
    assert sick["scores"]["test"][0]["main_score"] == 0.7758


@pytest.mark.slow
def test_eval_writes_the_scores_it_prints(tmp_path, capsys):
    """A real evaluation (a tiny encoder on STS16): the MTEB file holds the printed score, as a fraction."""
    out = tmp_path / "mteb"
    assert main(["eval", tiny_encoder(), "--tasks", "STS16", "--json", "--mteb-out", str(out)]) == 0
    (printed,) = json.loads(capsys.readouterr().out).values()
    (task_file,) = out.rglob("STS16.json")
    result = json.loads(task_file.read_text(encoding="utf-8"))
    assert result["scores"]["test"][0]["main_score"] == round(printed["STS16"] / 100, 6)
    assert (task_file.parent / "model_meta.json").is_file()
