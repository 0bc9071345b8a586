"""Helpers for test_faults.py: a tiny regressor, and a child process that gets killed in the middle of a save.

``python tests/fault_helpers.py SCENARIO FOLDER`` saves a *new* tiny model (or JSON file) over FOLDER with
one writer slowed down; it prints a marker line at the worst moment and then waits to be killed:

* ``head``          - half of ``head.safetensors`` written into the staging folder;
* ``encoder``       - half of the encoder's ``model.safetensors`` written into the staging folder;
* ``swap-fallback`` - no atomic folder swap available: the old folder moved aside, the new one not yet in place;
* ``json``          - ``write_json_atomic`` has written its temporary file but not renamed it;
* ``app-run``       - a fine-tune started the app's way (its record in a session folder under FOLDER, the
                      output folder), whose second checkpoint is being written when it hangs: the step-0
                      checkpoint is good, the next one half-written in its staging folder.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PAIRS = (["A man is playing a guitar.", "A dog runs in the park."], ["A man plays the guitar.", "Stocks fell."])


def tiny_model(seed: int):
    """A 1-layer, 32-wide BERT with the embedded model's tokenizer: saves and loads in a blink."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    from stsdemo import environment
    from stsdemo.model import SiameseRegressor

    torch.manual_seed(seed)
    tokenizer = AutoTokenizer.from_pretrained(str(environment.default_model_path()))
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    return SiameseRegressor(BertModel(config), tokenizer, max_length=32, base_model="tiny-test-bert")


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


def app_run(output: str) -> None:
    """The ``app-run`` scenario (STSDEMO_OUTPUT_DIR is ``output``): every dev evaluation scores higher than the
    last, so each is saved; the second save's head file is half-written when the child hangs."""
    import stsdemo.evaluate
    import stsdemo.save_format
    from stsdemo.app import finetune_view, store
    from stsdemo.app.state import StopSignal
    from stsdemo.preflight import preflight
    from stsdemo.train import TrainConfig

    start = tiny_model(seed=1).save(Path(output) / "tiny-start")
    real_save, real_score = stsdemo.save_format.save_file, stsdemo.evaluate.DevEvaluator.__call__
    saves, scores = [], []

    def second_save_hangs(tensors, filename, metadata=None):
        saves.append(filename)
        return (real_save if len(saves) == 1 else half_writer)(tensors, filename, metadata)

    def rising(self, model):
        metrics = real_score(self, model)
        scores.append(len(scores))
        return {**metrics, "score": float(len(scores))}

    stsdemo.save_format.save_file, stsdemo.evaluate.DevEvaluator.__call__ = second_save_hangs, rising
    session, run_id = "killed", store.new_run_id()
    folder = store.session_run_folder(session, run_id)
    config = preflight(TrainConfig(model=str(start), data="stsb", max_pairs=16, max_dev_pairs=8, max_length=16,
                                   batch_size=4, max_steps=4, eval_every=2, log_every=1, run_name=run_id,
                                   output_dir=str(folder / "checkpoint")))
    live = finetune_view.start_run(session, config, False, {}, [])
    for _ in finetune_view.run_admitted(None, live, StopSignal(folder / store.STOP_FLAG)):
        pass


def main(scenario: str, folder: str) -> None:
    if scenario == "app-run":
        app_run(folder)
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
