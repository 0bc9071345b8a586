"""The app's default fine-tune as a visitor starts it: the Fine-tune form at its defaults, run to the end.

    python -m bench.app_default            # prints one JSON line and records it under speed/app_default
    python -m bench.app_default --compare  # "Compare with and without the buffer" at the form's defaults:
                                           # records speed/app_compare

The form's defaults go through the app's own :func:`stsdemo.app.finetune.form.build_config` (so the start model, the
target, the step count and the dev slice are the ones a visitor gets), then the training loop runs them;
reported: the dev metric that picks the checkpoint (read by :func:`stsdemo.selection.dev_score`) at step 0 (the
start), at the last step and at the kept checkpoint, and the wall time.
``--compare`` runs the pair through the app's own :func:`stsdemo.app.finetune.compare.stream_comparison` (one queued
job: the form as set, then x0 = 0) and reports both runs' last dev and the wall time of the pair.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

from .common import Timer, device_name, setup_environment, update_results


def default_run() -> dict:
    from stsdemo.app.finetune import form
    from stsdemo.selection import dev_score
    from stsdemo.train import DoneEvent, EvalEvent, train

    config = form.build_config("bench", "default-run", form.form_defaults())
    with Timer() as timer:
        events = list(train(config))
    evals = [e for e in events if isinstance(e, EvalEvent)]
    done = next(e for e in events if isinstance(e, DoneEvent))
    return dict(start=config.model or "embedded encoder", target=config.target, steps=config.max_steps,
                dev_pairs=config.max_dev_pairs, select_by=config.select_by,
                start_dev=dev_score(evals[0], config.select_by), last_dev=dev_score(evals[-1], config.select_by),
                kept_dev=done.best, kept_step=str(done.best_step), start_accuracy=evals[0].dev_accuracy,
                last_accuracy=evals[-1].dev_accuracy,
                seconds=timer.seconds, device=device_name())


def compare_run() -> dict:
    from stsdemo.app import session_files
    from stsdemo.app.finetune import compare as compare_view
    from stsdemo.app.finetune import form
    from stsdemo.app.app_state import AppState

    values = form.form_defaults()
    with Timer() as timer:
        views = list(compare_view.stream_comparison(AppState(), "bench", values))
    first, second = session_files.list_runs("bench")[-2:]
    config = form.build_config("bench", "unused", values)
    return dict(steps=config.max_steps, dev_pairs=config.max_dev_pairs, loss=config.loss, target=config.target,
                x0=[first.config["x0"], second.config["x0"]], status=[first.status, second.status],
                last_dev=[compare_view.final_dev(first, config.select_by),
                          compare_view.final_dev(second, config.select_by)],
                verdict=views[-1].status, seconds=timer.seconds, device=device_name())


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m bench.app_default", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--compare", action="store_true", help="time the with/without-buffer comparison instead")
    args = parser.parse_args(argv)
    setup_environment()
    with tempfile.TemporaryDirectory() as folder:
        os.environ["STSDEMO_OUTPUT_DIR"] = folder
        row = compare_run() if args.compare else default_run()
    update_results("speed", {"app_compare" if args.compare else "app_default": row})
    print(json.dumps(row))
    return row


if __name__ == "__main__":
    main(sys.argv[1:])
