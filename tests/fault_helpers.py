"""Helpers for test_faults.py: a child process that gets killed in the middle of a save.

``python tests/fault_helpers.py SCENARIO FOLDER`` saves a *new* tiny model (or JSON file) over FOLDER with
one writer slowed down; it prints a marker line at the worst moment and then waits to be killed:

* ``head``          - half of ``head.safetensors`` written into the staging folder;
* ``encoder``       - half of the encoder's ``model.safetensors`` written into the staging folder;
* ``swap-fallback`` - no atomic folder swap available: the old folder moved aside, the new one not yet in place;
* ``json``          - ``write_json_atomic`` has written its temporary file but not renamed it;
* ``app-run``       - a fine-tune started the app's way (its record in a session folder under FOLDER, the
                      output folder), whose second checkpoint is being written when it hangs: the step-0
                      checkpoint is good, the next one half-written in its staging folder;
* ``app-swap``      - the same fine-tune, hanging just after its second checkpoint was swapped in (the marker
                      line ends with the sha256 of the swapped-in head file);
* ``zip``           - a finished run of the app (under the output folder FOLDER) being zipped for download:
                      its export folder written, the zip half-written when it hangs;
* ``embedding``     - the Playground's embedding cache (under the output folder FOLDER) writing a table: its
                      temporary file written, not yet renamed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tiny_models import tiny_model  # noqa: E402

PAIRS = (
    ["A man is playing a guitar.", "A dog runs in the park."],
    ["A man plays the guitar.", "Stocks fell."],
)


def hang(marker: str) -> None:
    print(marker, flush=True)
    time.sleep(600)


def half_writer(tensors, filename, metadata=None):
    """safetensors' save_file, but it writes half the bytes, flushes them to disk and hangs."""
    import os

    from safetensors.torch import save

    data = save(tensors, metadata=metadata)
    with open(filename, "wb") as handle:
        handle.write(data[: len(data) // 2])
        handle.flush()
        os.fsync(handle.fileno())
    hang(f"HALF-WRITTEN {filename}")


def hang_at_second_save(at_swap: bool) -> None:
    """The second checkpoint save hangs: with its head file half-written, or (``at_swap``) just after the
    folder swap, printing the swapped-in head's sha256."""
    import hashlib

    import stsdemo.atomic
    import stsdemo.save_format

    real_save, real_exchange = stsdemo.save_format.save_file, stsdemo.atomic.exchange
    saves = []

    def second_save_hangs(tensors, filename, metadata=None):
        saves.append(filename)
        return (real_save if len(saves) == 1 or at_swap else half_writer)(tensors, filename, metadata)

    def exchange_then_hang(first, second):
        swapped = real_exchange(first, second)
        if swapped:
            hang(
                f"SWAPPED {hashlib.sha256((second / stsdemo.save_format.HEAD_NAME).read_bytes()).hexdigest()}"
            )
        return swapped

    stsdemo.save_format.save_file, stsdemo.atomic.exchange = second_save_hangs, exchange_then_hang


def app_run(output: str, at_swap: bool) -> None:
    """The ``app-run`` and ``app-swap`` scenarios (STSDEMO_OUTPUT_DIR is ``output``): every dev evaluation scores
    higher than the last, so each is saved; the second save hangs (:func:`hang_at_second_save`)."""
    import stsdemo.evaluate
    from stsdemo.app.app_state import StopSignal
    from stsdemo.app.finetune import view as finetune_view
    from stsdemo.preflight import preflight
    from stsdemo.serving import session_files
    from stsdemo.train import TrainConfig

    start = tiny_model(seed=1).save(Path(output) / "tiny-start")
    real_score = stsdemo.evaluate.DevEvaluator.__call__
    scores = []

    def rising(self, model):
        metrics = real_score(self, model)
        scores.append(len(scores))
        return {**metrics, "score": float(len(scores))}

    hang_at_second_save(at_swap)
    stsdemo.evaluate.DevEvaluator.__call__ = rising
    session, run_id = "killed", session_files.new_run_id()
    folder = session_files.session_run_folder(session, run_id)
    config = preflight(
        TrainConfig(
            model=str(start),
            data="stsb",
            max_pairs=16,
            max_dev_pairs=8,
            max_length=16,
            batch_size=4,
            max_steps=4,
            eval_every=2,
            log_every=1,
            run_name=run_id,
            output_dir=str(folder / "checkpoint"),
        )
    )
    live = finetune_view.start_run(session, config, False, {}, [])
    for _ in finetune_view.run_admitted(None, live, StopSignal(folder / session_files.STOP_FLAG)):
        pass


def finished_run(session: str, run_id: str) -> None:
    """A finished run of ``session`` in the app's output folder: a tiny scorer as its checkpoint."""
    from stsdemo.serving import session_files

    checkpoint = session_files.session_run_folder(session, run_id) / "checkpoint"
    tiny_model(seed=3).save(checkpoint)
    session_files.save_run(
        session,
        session_files.RunInfo(run_id, "#1 tiny", status="finished", config={"output_dir": str(checkpoint)}),
    )


def zip_run() -> None:
    """The ``zip`` scenario: the zip of a finished run hangs after its first file is written."""
    import zipfile

    from stsdemo.app.app_state import AppState
    from stsdemo.serving import session_files

    finished_run("zipped", "tiny-run")
    real_write = zipfile.ZipFile.write

    def write_then_hang(self, *args, **kwargs):
        real_write(self, *args, **kwargs)
        self.fp.flush()
        hang("ZIPPING")

    zipfile.ZipFile.write = write_then_hang
    session_files.zip_run(AppState(), "zipped", "tiny-run")


def embedding_write() -> None:
    """The ``embedding`` scenario: a table of the Playground's cache is written to its temporary file, then hangs."""
    import os

    import numpy as np

    from stsdemo.playground.embeddings import Encoder, embed_sentences

    encoder = Encoder(
        "stand-in", "stand-in", 16, lambda sentences: np.ones((len(sentences), 4), dtype=np.float32)
    )
    os.fsync = lambda fd: hang("STAGED")
    embed_sentences(["A man plays.", "A dog runs."], encoder)


def main(scenario: str, folder: str) -> None:
    if scenario in ("app-run", "app-swap"):
        app_run(folder, at_swap=scenario == "app-swap")
        return
    if scenario == "zip":
        zip_run()
        return
    if scenario == "embedding":
        embedding_write()
        return
    if scenario == "json":
        import stsdemo.atomic as atomic

        atomic.os.fsync = lambda fd: hang("STAGED")  # the temporary file is written, the rename not yet done
        atomic.write_json_atomic(folder, {"best_dev": 99.0, "note": "new"})
        print("SAVED", flush=True)
        return
    model = tiny_model(seed=2)
    if scenario == "head":
        import stsdemo.save_format

        stsdemo.save_format.save_file = half_writer
    elif scenario == "encoder":
        import transformers.modeling_utils

        transformers.modeling_utils.safe_save_file = half_writer
    elif scenario == "swap-fallback":
        import stsdemo.atomic as atomic

        atomic.exchange = lambda first, second: False
        real_rename = Path.rename

        def rename(self, target):
            result = real_rename(self, target)
            if str(target).endswith(".old"):
                hang("RETIRED")
            return result

        Path.rename = rename
    else:
        raise SystemExit(f"unknown scenario {scenario!r}")
    model.save(folder)
    print("SAVED", flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:3])
