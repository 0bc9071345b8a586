"""precision=auto: the choice logic, with timings injected (no GPU needed), and what a CPU run records."""

import itertools

import pytest
import torch

from stsdemo.precision import GPU_CANDIDATES, choose, fastest, gpu_candidates

GPU = torch.device("cuda")  # a device name only: nothing runs on it here
CPU = torch.device("cpu")


def timings_from(table: dict, calls: list):
    """An injected step timer: each precision's seconds from ``table``, every call logged in ``calls``."""

    def step_seconds(precision: str) -> float:
        calls.append(precision)
        value = table[precision]
        if isinstance(value, BaseException):
            raise value
        return value

    return step_seconds


@pytest.mark.parametrize("order", list(itertools.permutations([0.0200, 0.0315, 0.0513, 0.0650])))
def test_auto_never_picks_a_precision_measured_slower_than_another(order):
    table = dict(zip(GPU_CANDIDATES, order))
    calls = []
    choice = choose("auto", GPU, timings_from(table, calls), bf16_native=True, where="a test GPU")
    assert sorted(calls) == sorted(GPU_CANDIDATES)  # every candidate was timed, once
    assert all(table[choice.chosen] <= seconds for seconds in table.values())
    assert choice.step_seconds == table and choice.setting == "auto"
    assert f"{choice.chosen} " in choice.why and "a test GPU" in choice.why


def test_the_h100_table_chooses_fp32_where_bf16_was_slower():
    """The recorded H100 figures at batch 16 (pairs/s: fp32 512, bf16 310, fp16 255) as seconds per step."""
    table = {"fp32": 16 / 512, "tf32": 16 / 512, "bf16": 16 / 310, "fp16": 16 / 255}
    choice = choose("auto", GPU, timings_from(table, []), bf16_native=True)
    assert choice.chosen == "fp32"  # a tie goes to the more exact
    assert choice.mixed_precision == "no"


def test_tf32_is_chosen_when_it_is_faster_and_keeps_fp32_tensors():
    table = {"fp32": 0.030, "tf32": 0.021, "bf16": 0.025, "fp16": 0.026}
    choice = choose("auto", GPU, timings_from(table, []), bf16_native=True)
    assert choice.chosen == "tf32" and choice.mixed_precision == "no"
    assert "tf32 21.0 ms" in choice.why


def test_bf16_is_not_timed_on_a_gpu_without_it_natively():
    calls = []
    table = {"fp32": 0.03, "tf32": 0.02, "fp16": 0.01}
    choice = choose("auto", GPU, timings_from(table, calls), bf16_native=False)
    assert "bf16" not in calls and choice.chosen == "fp16" and choice.mixed_precision == "fp16"
    assert gpu_candidates(False) == ("fp32", "tf32", "fp16")


def test_a_candidate_that_fails_is_never_chosen():
    table = {"fp32": 0.03, "tf32": 0.025, "bf16": torch.OutOfMemoryError("CUDA out of memory"), "fp16": 0.04}
    choice = choose("auto", GPU, timings_from(table, []), bf16_native=True)
    assert choice.chosen == "tf32" and "bf16 failed (OutOfMemoryError)" in choice.why
    assert choice.step_seconds["bf16"] == float("inf")


def test_every_candidate_failing_falls_back_to_fp32():
    error = RuntimeError("no kernel image is available")
    choice = fastest("auto", ("fp32", "fp16"), timings_from({"fp32": error, "fp16": error}, []), "a test GPU")
    assert choice.chosen == "fp32"


def test_the_cpu_trains_in_fp32_without_timing():
    calls = []
    for setting in ("auto", "bf16", "tf32"):
        choice = choose(setting, CPU, timings_from({}, calls))
        assert choice.chosen == "fp32" and choice.mixed_precision == "no" and choice.step_seconds == {}
        assert "not timed" in choice.why
    assert calls == []


def test_a_precision_set_explicitly_on_a_gpu_is_taken_without_timing():
    calls = []
    for setting in ("fp32", "tf32", "bf16", "fp16"):
        choice = choose(setting, GPU, timings_from({}, calls))
        assert choice.chosen == setting and choice.why == "set in the run's settings"
    assert calls == []
