"""bench.sweep: a sweep's tasks run here one after another (no Ray imported) or on Ray, and only the driver
records; a failed task runs once more, then is handed to ``failed`` while the others finish; a bad address is
one line before anything runs. The Ray tests start a local Ray of 2 CPUs each and shut it down."""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np
import pytest

from bench import sweep
from bench.sweep import Task, run_sweep
from stsdemo.errors import InputError


def draws(task: Task) -> dict:
    """A small deterministic computation: the same record in any process, at any thread count."""
    values = np.sort(np.random.default_rng(task.args).normal(size=20_000))
    return {
        "seed": task.args,
        "mean": float(values.mean()),
        "p90": float(values[18_000]),
        "head": values[:3].tolist(),
        "pid": os.getpid(),
    }


def flaky(task: Task) -> dict:
    """``args``: (what to do, the folder of marker files). Every attempt leaves a line in ``<key>.tries``;
    "dies once" ends its worker process on its first attempt, "raises" always raises, "raises once" on its
    first."""
    action, folder = task.args
    tries = os.path.join(folder, f"{task.key}.tries")
    first = not os.path.exists(tries)
    with open(tries, "a") as handle:
        handle.write("try\n")
    if action == "dies once" and first:
        os._exit(3)
    if action == "raises" or (action == "raises once" and first):
        raise ValueError(f"{task.key} is broken\n(second line)")
    return {"key": task.key}


def tries(folder, key: str) -> int:
    return len((folder / f"{key}.tries").read_text().splitlines())


def records_of(tasks, work, **options) -> tuple[dict, dict, dict]:
    """``(records, failed, returned)`` of a sweep: what ``record`` and ``failed`` were handed, and what it
    returned."""
    records, failed = {}, {}
    returned = run_sweep(
        tasks, work, records.__setitem__, failed=failed.__setitem__, progress=False, **options
    )
    return records, failed, returned


def without_pids(records: dict) -> str:
    """The records as ``json.dumps`` sorts them, without the process that computed each."""
    kept = {
        key: {name: value for name, value in record.items() if name != "pid"}
        for key, record in records.items()
    }
    return json.dumps(kept, sort_keys=True)


# ---- serial: the default, with no Ray -------------------------------------------------------------------


def test_the_serial_path_records_every_task_in_order_skips_the_done_ones_and_never_imports_ray(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails: the serial path needs none
    order = []
    tasks = [Task(f"seed{seed}", seed) for seed in range(4)]
    found = run_sweep(
        tasks, draws, lambda key, record: order.append((key, record)), done={"seed2"}, progress=False
    )
    assert found == {} and [key for key, _ in order] == ["seed0", "seed1", "seed3"]
    assert all(record == draws(Task(key, record["seed"])) for key, record in order)
    assert {record["pid"] for _, record in order} == {os.getpid()}
    assert sys.modules["ray"] is None


def test_serially_a_failed_task_runs_once_more_and_one_that_fails_again_is_handed_to_failed(tmp_path):
    tasks = [
        Task("ok", ("works", str(tmp_path))),
        Task("once", ("raises once", str(tmp_path))),
        Task("broken", ("raises", str(tmp_path))),
        Task("last", ("works", str(tmp_path))),
    ]
    records, failed, returned = records_of(tasks, flaky)
    assert list(records) == ["ok", "once", "last"]
    assert failed == returned == {"broken": "ValueError: broken is broken (second line)"}
    assert {key: tries(tmp_path, key) for key in ("ok", "once", "broken", "last")} == {
        "ok": 1,
        "once": 2,
        "broken": 2,
        "last": 1,
    }


def test_without_a_callback_a_failure_is_one_line_on_stderr(tmp_path, capsys):
    run_sweep([Task("broken", ("raises", str(tmp_path)))], flaky, lambda key, record: None, progress=False)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].endswith("FAILED broken: ValueError: broken is broken (second line)")


def test_without_tqdm_the_progress_is_a_line_with_the_count_and_the_eta(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    run_sweep([Task("a", 1), Task("b", 2)], draws, lambda key, record: None)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("sweep: 1/2 tasks, ETA 00:00:")
    assert lines[1] == "sweep: 2/2 tasks, ETA 00:00:00"


def test_with_tqdm_the_bar_counts_the_tasks(capsys):
    pytest.importorskip("tqdm")
    run_sweep([Task("a", 1), Task("b", 2)], draws, lambda key, record: None)
    assert "2/2" in capsys.readouterr().err


def test_ray_asked_for_but_not_installed_is_one_line_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(InputError, match=r"^--ray needs Ray: pip install 'stsdemo\[sweep\]'"):
        run_sweep([Task("a", 1)], draws, lambda key, record: None, ray="")


# ---- a bad address: one line, at once -------------------------------------------------------------------


@pytest.mark.parametrize(
    "address, says",
    [
        ("127.0.0.1:1", "no Ray cluster answers at 127.0.0.1:1 (Connection refused)"),
        ("ray://127.0.0.1:1", "no Ray cluster answers at ray://127.0.0.1:1"),
        ("headnode", "Ray address 'headnode' is not HOST:PORT"),
        ("10.0.0.1:port", "Ray address '10.0.0.1:port' is not HOST:PORT"),
    ],
)
def test_a_bad_address_is_one_line_before_any_task_runs(address, says):
    ran = []
    started = time.monotonic()
    with pytest.raises(InputError) as raised:
        run_sweep([Task("a", 1)], lambda task: ran.append(task), lambda key, record: None, ray=address)
    assert time.monotonic() - started < sweep.PROBE_SECONDS and not ran
    assert str(raised.value).startswith(says) and "\n" not in str(raised.value)


# ---- on a local Ray of 2 CPUs ---------------------------------------------------------------------------


@pytest.mark.slow
def test_a_local_ray_gives_the_records_of_the_serial_run_computed_in_other_processes():
    pytest.importorskip("ray")
    tasks = [Task(f"seed{seed}", seed) for seed in range(6)]
    serial, _, _ = records_of(tasks, draws)
    started = time.monotonic()
    on_ray, failed, _ = records_of(tasks, draws, ray="", cpus=2)
    assert time.monotonic() - started < 60 and failed == {}
    assert without_pids(on_ray) == without_pids(serial)
    assert os.getpid() not in {record["pid"] for record in on_ray.values()}
    assert not sys.modules["ray"].is_initialized()  # the sweep shut its Ray down


@pytest.mark.slow
def test_on_ray_a_killed_worker_is_retried_and_a_task_that_always_raises_is_failed_while_the_others_finish(
    tmp_path,
):
    pytest.importorskip("ray")
    tasks = [
        Task("killed", ("dies once", str(tmp_path))),
        Task("broken", ("raises", str(tmp_path))),
        *(Task(f"ok{n}", ("works", str(tmp_path))) for n in range(3)),
    ]
    started = time.monotonic()
    records, failed, returned = records_of(tasks, flaky, ray="", cpus=2)
    assert time.monotonic() - started < 60
    assert sorted(records) == ["killed", "ok0", "ok1", "ok2"] and records["killed"] == {"key": "killed"}
    assert failed == returned == {"broken": "ValueError: broken is broken (second line)"}
    assert tries(tmp_path, "killed") == 2 and tries(tmp_path, "broken") == 2 and tries(tmp_path, "ok0") == 1


@pytest.mark.slow
def test_a_task_asking_for_more_than_the_cluster_has_is_one_line_not_a_wait():
    pytest.importorskip("ray")
    with pytest.raises(InputError, match="a task asks for 64 GPU, the Ray cluster has "):
        run_sweep([Task("a", 1, num_gpus=64)], draws, lambda key, record: None, ray="", cpus=2)


@pytest.mark.slow
def test_the_speed_measure_times_both_runs_with_their_load_and_checks_their_records_equal():
    pytest.importorskip("ray")
    from bench.perf import sweep_speed

    found = sweep_speed.main(["--tasks", "2", "--rounds", "2", "--workers", "2", "--no-record"])
    assert found["speedup"] == round(found["serial"]["wall_seconds"] / found["ray"]["wall_seconds"], 2)
    assert found["serial"]["start_seconds"] == 0 and found["ray"]["start_seconds"] > 0
    assert all(
        len(run["task_seconds"]) == 2 and set(run["load"]) == {"before", "after"}
        for run in (found["serial"], found["ray"])
    )


HEAD = """import sys, ray
ray.init(address="local", num_cpus=2, include_dashboard=False)
print(ray.get_runtime_context().gcs_address, flush=True)
sys.stdin.read()
ray.shutdown()
"""


@pytest.mark.slow
def test_a_sweep_joins_the_cluster_at_its_address_and_leaves_it_running():
    pytest.importorskip("ray")
    import subprocess

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(entry for entry in sys.path if entry)}
    head = subprocess.Popen(
        [sys.executable, "-c", HEAD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        address = head.stdout.readline().strip()
        tasks = [Task(f"seed{seed}", seed) for seed in range(3)]
        records, failed, _ = records_of(tasks, draws, ray=address)
        assert failed == {} and without_pids(records) == without_pids(records_of(tasks, draws)[0])
        assert os.getpid() not in {record["pid"] for record in records.values()}
        assert head.poll() is None  # the cluster is not the sweep's to stop
    finally:
        head.communicate("", timeout=60)


def test_docs_sweeps_quotes_the_recorded_speed_up_with_its_load():
    from bench.common import REPO, load_results

    found = load_results(REPO / "docs" / "results.json")["sweep"]["speedup"]
    text = (REPO / "docs" / "sweeps.md").read_text(encoding="utf-8")
    serial, on_ray = found["serial"], found["ray"]
    for quoted in (
        f"**{found['speedup']:.2f}×**",
        f"**{found['speedup_without_start']:.2f}×**",
        f"| serial, one process | {serial['wall_seconds']:.1f} s |",
        f"| local Ray, {found['workers']} workers | {on_ray['wall_seconds']:.1f} s | "
        f"{on_ray['start_seconds']:.1f} s |",
        *(
            f"{run['load']['before']['load_1min']:.2f} → {run['load']['after']['load_1min']:.2f}"
            for run in (serial, on_ray)
        ),
    ):
        assert quoted in text


@pytest.mark.slow
def test_the_payoff_map_on_ray_prints_the_readings_of_the_serial_run():
    """``python -m bench.evidence.payoff --ray --no-record`` on two small cells: the same records as the serial run (the
    engine is exact, so the readings are the same bits), the times and finishing clocks aside."""
    from bench.evidence import payoff

    cells = [
        "--data",
        "sts",
        "--losses",
        "sk2",
        "--heads",
        "paper",
        "--noises",
        "0.5",
        "--sizes",
        "50",
        "200",
        "--no-tuned",
        "--no-record",
    ]

    def readings(found: dict) -> str:
        return json.dumps(
            {
                key: {name: value for name, value in entry.items() if name not in ("seconds", "finished")}
                for key, entry in found.items()
            },
            sort_keys=True,
        )

    serial, on_ray = payoff.main(cells), payoff.main([*cells, "--ray"])
    assert len(serial) == 2 and readings(serial) == readings(on_ray)


def test_the_payoff_map_with_a_bad_ray_address_is_one_line_and_exit_2(capsys):
    from bench.evidence import payoff

    with pytest.raises(SystemExit) as stopped:
        payoff.main(
            ["--heads", "paper", "--sizes", "50", "--noises", "0", "--no-record", "--ray", "127.0.0.1:1"]
        )
    assert stopped.value.code == 2 and len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.slow
def test_a_preset_on_ray_gives_the_serial_record():
    from bench.evidence import presets

    def readings(found: dict) -> str:
        return json.dumps({name: entry["checkpoints"] for name, entry in found.items()}, sort_keys=True)

    asked = ["--only", "widest-buffer", "--no-record"]
    assert readings(presets.main(asked)) == readings(presets.main([*asked, "--ray"]))
