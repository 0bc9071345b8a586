"""Several processes through torchrun, unchanged code: 2 CPU processes on the gloo backend, training a tiny encoder."""

import json
import os
import shutil
import subprocess
import sys

import pytest
from tiny_models import tiny_encoder

from stsdemo.model import SiameseRegressor


@pytest.mark.skipif(shutil.which("torchrun") is None, reason="torchrun is not installed")
def test_two_cpu_processes_train_one_model(tmp_path):
    out = tmp_path / "ddp"
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--nproc_per_node",
        "2",
        "--master_port",
        "29561",
        "-m",
        "stsdemo",
        "train",
        "--model",
        tiny_encoder(),
        "--data",
        "stsb",
        "--max-pairs",
        "64",
        "--max-steps",
        "2",
        "--max-length",
        "32",
        "--max-dev-pairs",
        "100",
        "--eval-every",
        "2",
        "--log-every",
        "1",
        "--no-final-eval",
        "--output-dir",
        str(out),
    ]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    events = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    # Only the main process reports, and it reports a group of two.
    assert [e["event"] for e in events].count("done") == 1
    assert events[0]["event"] == "start" and events[0]["processes"] == 2
    steps = [e for e in events if e["event"] == "step"]
    assert [s["step"] for s in steps] == [1, 2]
    SiameseRegressor.load(str(out))
