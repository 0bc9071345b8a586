"""Run a benchmark's independent tasks (a grid's runs, a map's cells) here one after another, on a local
Ray, or on a Ray cluster, with one writer of the results.

A :class:`Task` is a key, the arguments of one call and the resources it needs. ``run_sweep(tasks, work,
record)`` calls ``work(task)`` for every task and hands what it returns to ``record(key, result)`` in this
process, as each task finishes: workers compute and return, only the driver writes, so ``docs/results.json``
keeps one writer (the locked atomic write of :mod:`bench.common`) whatever runs the tasks.

* ``ray=None`` (the default): serial, in this process; Ray is not imported and need not be installed.
* ``ray=""``: a new local Ray on this machine (``cpus`` cores, default all), shut down at the end.
* ``ray="HOST:PORT"`` (or ``ray://HOST:PORT``, or ``auto``): join that cluster (``ray.init(address=...)``).

A task that raises, or whose worker dies (killed, out of memory), runs once more; if it fails again its
one-line error goes to ``failed(key, error_line)`` (default: logged on stderr), ``record`` is not called for
it and the sweep goes on; ``run_sweep`` returns ``{key: error_line}`` of the failed tasks. A bad address, or
Ray missing, is an :class:`~stsdemo.errors.InputError` before any task runs (a benchmark prints its one line
and exits with status 2).
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from stsdemo.errors import InputError

RETRIES = 1  # a failed task runs once more before it is handed to ``failed``
PROBE_SECONDS = 5.0  # how long a cluster's address has to accept a connection
INSTALL = "pip install 'stsdemo[sweep]' (Ray 2.60)"


@dataclass(frozen=True)
class Task:
    """One call of a sweep's work function: ``key`` names its record, ``args`` is what the work function
    reads, ``num_cpus`` and ``num_gpus`` what Ray reserves for it (fractions allowed: ``num_gpus=0.25`` puts
    four tasks on a GPU). The serial path ignores the resources."""

    key: str
    args: Any = None
    num_cpus: float = 1
    num_gpus: float = 0


def error_line(error: BaseException) -> str:
    """``Type: message`` on one line; a Ray task's error by the exception the task raised."""
    error = getattr(error, "cause", None) or error
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def check_address(address: str) -> None:
    """Raise :class:`InputError` unless ``address`` is ``auto`` or a ``[ray://]HOST:PORT`` that accepts a
    connection within :data:`PROBE_SECONDS` (``ray.init`` waits minutes on a dead address)."""
    if address == "auto":
        return
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not (colon and host and port.isdigit()):
        raise InputError(
            f"Ray address {address!r} is not HOST:PORT (as `ray start --head` prints it), "
            "ray://HOST:PORT or auto; give --ray alone for a local Ray"
        )
    try:
        socket.create_connection((host, int(port)), timeout=PROBE_SECONDS).close()
    except OSError as error:
        raise InputError(
            f"no Ray cluster answers at {address} ({error.strerror or error_line(error)}); "
            "start one with `ray start --head`, or give --ray alone for a local Ray"
        ) from None


@contextlib.contextmanager
def session(address: str | None, cpus: int | None = None):
    """Ray, connected for the sweeps inside (nothing for ``None``): a local Ray on ``cpus`` cores for ``""``,
    else the cluster at ``address``; shut down on leaving. A sweep inside a session runs on it."""
    if address is None:
        yield
        return
    if address:
        check_address(address)
    try:
        import ray
    except ImportError:
        raise InputError(f"--ray needs Ray: {INSTALL}") from None
    if address:
        try:
            ray.init(address=address, include_dashboard=False)
        except ConnectionError as error:  # "auto" with no cluster on this machine, a cluster that went away
            raise InputError(f"no Ray cluster at {address}: {error_line(error)}") from None
    else:  # a new Ray even where `ray start` or RAY_ADDRESS names one; its workers import what we import
        path = os.pathsep.join(entry for entry in sys.path if entry)
        ray.init(
            address="local",
            num_cpus=cpus,
            include_dashboard=False,
            runtime_env={"env_vars": {"PYTHONPATH": path}},
        )
    try:
        yield
    finally:
        ray.shutdown()


def run_sweep(
    tasks,
    work: Callable[[Task], Any],
    record: Callable[[str, Any], None],
    *,
    ray: str | None = None,
    done=frozenset(),
    failed: Callable[[str, str], None] | None = None,
    progress: bool = True,
    cpus: int | None = None,
) -> dict[str, str]:
    """Run ``work(task)`` for each task whose key is not in ``done``: serially (``ray=None``), or on Ray (the
    session it is called in; else ``""``: a local Ray on ``cpus`` cores, an address: that cluster), calling
    ``record(key, result)`` here as each finishes. A task is tried ``1 + RETRIES`` times; one that still
    fails goes to ``failed(key, error_line)``. Returns ``{key: error_line}`` of the failed tasks."""
    todo = [task for task in tasks if task.key not in done]
    failures: dict[str, str] = {}

    def finished(key: str, result=None, error: BaseException | None = None) -> None:
        if error is None:
            record(key, result)
        else:
            failures[key] = error_line(error)
            (failed or _log_failure)(key, failures[key])
        bar.update(1)

    with contextlib.ExitStack() as stack:
        if ray is not None and not _ray_connected():
            stack.enter_context(session(ray, cpus))
        bar = stack.enter_context(contextlib.closing(_progress(len(todo), progress)))
        if ray is None:
            for task in todo:
                _serial(task, work, finished)
        else:
            _on_ray(todo, work, finished)
    return failures


def _serial(task: Task, work, finished) -> None:
    for attempt in range(1 + RETRIES):
        try:
            result = work(task)
        except Exception as error:  # one broken task must not end the sweep
            if attempt == RETRIES:
                finished(task.key, error=error)
            continue
        finished(task.key, result)
        return


def _call(work, task: Task):
    """What a Ray worker runs: the work function on its task."""
    return work(task)


def _on_ray(todo: list[Task], work, finished) -> None:
    import ray

    _check_resources(todo, ray.cluster_resources())
    remote = ray.remote(max_retries=RETRIES, retry_exceptions=True)(_call)
    pending = {
        remote.options(num_cpus=task.num_cpus, num_gpus=task.num_gpus).remote(work, task): task.key
        for task in todo
    }
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        key = pending.pop(ready[0])
        try:
            result = ray.get(ready[0])
        except Exception as error:  # the task's own error (RayTaskError), its worker's death, ...
            finished(key, error=error)
        else:
            finished(key, result)


def _check_resources(todo: list[Task], cluster: dict) -> None:
    """An InputError when a task asks for more CPUs or GPUs than the whole cluster has (Ray would wait for
    them forever)."""
    for name, field in (("CPU", "num_cpus"), ("GPU", "num_gpus")):
        needed, has = max((getattr(task, field) for task in todo), default=0), cluster.get(name, 0)
        if needed > has:
            raise InputError(f"a task asks for {needed:g} {name}, the Ray cluster has {has:g}")


def _ray_connected() -> bool:
    ray = sys.modules.get("ray")  # never imported here: a session would have imported it
    return ray is not None and ray.is_initialized()


def _log_failure(key: str, line: str) -> None:
    print(time.strftime("[%H:%M:%S]"), f"FAILED {key}: {line}", file=sys.stderr, flush=True)


def _progress(total: int, shown: bool):
    """A progress bar of ``total`` tasks, the count done and the ETA: tqdm's where installed, else a line."""
    if not shown:
        return _Quiet()
    try:
        from tqdm import tqdm
    except ImportError:
        return _Line(total)
    return tqdm(total=total, unit="task", desc="sweep", file=sys.stderr, dynamic_ncols=True)


class _Quiet:
    def update(self, count: int) -> None:
        pass

    def close(self) -> None:
        pass


class _Line(_Quiet):
    """``sweep: 3/8 tasks, ETA 00:01:40`` on stderr after each task (from the mean time a task so far)."""

    def __init__(self, total: int):
        self.total, self.count, self.started = total, 0, time.monotonic()

    def update(self, count: int) -> None:
        self.count += count
        left = (time.monotonic() - self.started) / self.count * (self.total - self.count)
        print(
            f"sweep: {self.count}/{self.total} tasks, ETA {time.strftime('%H:%M:%S', time.gmtime(left))}",
            file=sys.stderr,
            flush=True,
        )
