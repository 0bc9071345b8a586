"""Speed records are kept per machine: a GPU's figures go beside the CPU's, never over them."""

import json

from bench.perf.speed import record_speed, steady
from bench.perf.speed_tables import repeats_text

CPU = {"device": "CPU (2 cores)", "ours_pairs_per_s": 52.0, "repeats": 4, "warmup_repeats": 1}
GPU = {"device": "NVIDIA H100 80GB HBM3", "ours_pairs_per_s": 489.0, "repeats": 4, "warmup_repeats": 1}


def test_a_gpu_record_goes_beside_the_cpu_record_and_a_rerun_replaces_its_own(tmp_path):
    path = tmp_path / "results.json"
    record_speed("train", CPU, path)
    record_speed("train", GPU, path)
    speed = json.loads(path.read_text())["speed"]
    assert speed["train"] == CPU
    assert speed["machines"]["NVIDIA H100 80GB HBM3"]["train"] == GPU
    record_speed("train", {**CPU, "ours_pairs_per_s": 55.0}, path)
    record_speed("train", {**GPU, "ours_pairs_per_s": 500.0}, path)
    speed = json.loads(path.read_text())["speed"]
    assert speed["train"]["ours_pairs_per_s"] == 55.0
    assert speed["machines"]["NVIDIA H100 80GB HBM3"]["train"]["ours_pairs_per_s"] == 500.0


def test_a_record_for_a_part_no_machine_has_yet_takes_the_top_level(tmp_path):
    path = tmp_path / "results.json"
    record_speed("eval7", GPU, path)
    assert json.loads(path.read_text())["speed"]["eval7"] == GPU


def test_the_warm_up_repeat_is_left_out_and_said():
    assert steady([138.1, 488.7, 489.2, 490.0]) == [488.7, 489.2, 490.0]
    assert steady([4.3]) == [4.3]  # a single (quick) repeat is all there is
    assert repeats_text(CPU) == "median of 3 after 1 warm-up repeat"
    assert repeats_text({"repeats": 3}) == "median of 3"
