"""Shared fixtures, and which tests are slow. Runs and checkpoints go to a temporary folder, never into the
repository.

``python -m pytest -q -n 2 --dist loadfile`` is the fast loop: the unit and view-model tests, in about a minute on two
cores (pyproject.toml's addopts carry ``-m 'not slow'``). ``python -m pytest -m "" -q -n 2 --dist loadfile`` (CI)
runs everything, each test file on one of two workers; a later ``-m`` replaces the default, so ``-m ""`` (or
``-m slow``) is also how to run one slow module by itself. A test is slow, and marked so here at collection, when

* it uses, directly or through other fixtures, a fixture of ``SLOW_FIXTURES``: one that launches the app's
  server (the API clients and the browser pages are built on it) or holds a real model's results;
* its module is in ``SLOW_MODULES``: every test there drives a browser, runs a benchmark or starts processes;
* it is named in ``SLOW_TESTS``: it trains, evaluates a real model or starts a Python process, in a module whose
  other tests are quick.

A module's owner may mark a test with ``@pytest.mark.slow`` instead; both read the same.
"""

import os
import sys

import pytest
import torch

# Two threads a process, or the cores shared out among pytest-xdist's workers (PYTEST_XDIST_WORKER_COUNT, set in each)
WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
torch.set_num_threads(max(1, min(2, (os.cpu_count() or 1) // WORKERS)))

SLOW_FIXTURES = {
    "app_url": "launches the Gradio app on a port (client, page, phone_page and owner_run build on it)",
    "shared_app_url": "launches the Gradio app once for the session (the browser modules share it)",
    "mcp_app": "launches the app with its MCP server",
    "app_state": "a real app state: its model cache loads the shipped scorer",
    "minilm_results": "encodes STS16's 1,867 test sentences with all-MiniLM-L6-v2",
    "roberta_run": "trains a tiny RoBERTa and scores it on the 7 tasks",
}
SLOW_MODULES = {
    "test_browser": "drives the app in Chromium",
    "test_bench_smoke": "runs the benchmarks' quick modes: real training and evaluation",
    "test_distributed": "trains one model in two processes under torchrun",
    "test_faults": "kills real processes mid-write, trains to an out-of-memory error",
}
SLOW_TESTS = {  # module: its slow tests, by function name (every parameter set)
    "test_train": {  # real training of all-MiniLM-L6-v2 on STS-B
        "test_short_fine_tune_raises_dev_spearman_of_the_head",
        "test_stop_flag_ends_the_run_between_steps_and_keeps_the_best",
        "test_closing_the_generator_ends_the_run",
        "test_warm_start_begins_at_its_starting_point_and_never_ends_below_it",
        "test_the_calibration_stage_starts_from_the_best_checkpoint_and_moves_only_a_and_b",
    },
    "test_compare_and_selection": {  # trains the compared runs
        "test_a_stopped_comparison_keeps_the_pairs_that_finished",
        "test_the_core_compares_a_pair_it_trains_itself",
        "test_the_paper_preset_keeps_its_trained_head_and_says_which_metric_picked_it",
    },
    "test_default_scorer": {"test_the_shipped_scorer_reproduces_its_recorded_sts_b_test_metrics"},
    "test_nli_scorer": {  # load and evaluate the shipped NLI scorer
        "test_the_nli_scorer_reproduces_its_recorded_snli_test_slice",
        "test_scoring_with_the_nli_scheme_picks_the_nli_scorer",
        "test_the_cli_scores_with_the_nli_scorer_for_the_nli_scheme",
    },
    "test_cli": {"test_exit_code_2_from_a_real_process"},  # a process
    "test_quiet": {
        "test_scoring_a_pair_on_the_command_line_prints_its_result_and_nothing_on_stderr"
    },  # a process
    "test_model": {  # save, load, export and train the real encoder
        "test_compact_saves_only_over_the_base_weights",
        "test_fp16_and_lora_saves_load_back_and_export_for_sentence_transformers",
        "test_save_load_round_trip_and_sentence_transformers",
        "test_save_load_round_trip_of_each_target",
        "test_cosine_target_starts_spanning_the_nodes_and_trains_a_b_and_encoder",
    },
    "test_playground": {  # train heads for hundreds of steps, several seeds at a time
        "test_a_heads_reading_at_its_chosen_step_equals_a_rerun_measured_there",
        "test_each_head_stops_at_the_step_that_maximises_its_selection_metric",
    },
}


def is_slow(item) -> bool:
    """Whether a collected test is slow by the rules of this module's docstring."""
    module = item.module.__name__
    return (
        bool(SLOW_FIXTURES.keys() & set(item.fixturenames))
        or module in SLOW_MODULES
        or item.originalname in SLOW_TESTS.get(module, ())
    )


def pytest_collection_modifyitems(config, items):
    """Mark the slow tests (``-m "not slow"`` leaves them out)."""
    for item in items:
        if is_slow(item):
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """The browser tests' Chromium (tests/app_fixtures.py) is shared by a module's pages and stopped when the module
    ends."""
    try:
        return (yield)
    finally:
        fixtures = sys.modules.get("app_fixtures")
        if fixtures is not None and (nextitem is None or nextitem.module is not item.module):
            fixtures.stop_chromium()


def pytest_configure(config):
    """pytest resets the warning filters around each test: give it the package's exact library filters."""
    from stsdemo import library_warnings

    for line in library_warnings.pytest_filters():
        config.addinivalue_line("filterwarnings", line)


@pytest.fixture(scope="session", autouse=True)
def _isolated_output_dir(tmp_path_factory):
    """For the whole session, before any module's fixtures: runs go under pytest's temporary folder, and models may
    load from there (a test's tmp_path, tests/tiny_models.py's encoder)."""
    base = tmp_path_factory.getbasetemp()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STSDEMO_OUTPUT_DIR", str(base / "runs"))
        patch.setenv("STSDEMO_MODEL_ROOTS", str(base))
        yield


@pytest.fixture(scope="session")
def embedded_model():
    """The embedded all-MiniLM-L6-v2 with a fresh regression head, loaded once per test session."""
    from stsdemo.model import SiameseRegressor

    return SiameseRegressor.from_encoder(None)
