"""The app's default fine-tune as a visitor starts it: the Fine-tune form at its defaults, run to the end.

    python -m bench.perf.app_default            # prints one JSON line and records it under speed/app_default
    python -m bench.perf.app_default --compare  # "Compare with and without the buffer" at the form's defaults:
                                           # records speed/app_compare

The form's defaults are the core's default fine-tune (:func:`stsdemo.default_finetune.default_config`, which the
form draws its fields from; so the start model, the target, the step count and the dev slice are the ones a
visitor gets), then the training loop runs them; reported: the dev metric that picks the checkpoint (read by
:func:`stsdemo.selection.dev_score`) at step 0 (the start), at the last step and at the kept checkpoint, and the
wall time. ``--compare`` runs the pair through the core's comparison that the app's Compare streams
(:func:`stsdemo.buffer_comparison.compare`: the form as set, then x0 = 0) and reports both runs' last dev, the
paired verdict and the wall time of the pair. No app is served: bench reads the core, not the app.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

from ..common import Timer, device_name, setup_environment, update_results


def default_run(folder: str) -> dict:
    """The default fine-tune, its checkpoint in ``folder``."""
    from stsdemo.default_finetune import default_config
    from stsdemo.selection import dev_score
    from stsdemo.train import DoneEvent, EvalEvent, train

    config = default_config("default-run", os.path.join(folder, "default-run"))
    with Timer() as timer:
        events = list(train(config))
    evals = [e for e in events if isinstance(e, EvalEvent)]
    done = next(e for e in events if isinstance(e, DoneEvent))
    return dict(
        start=config.model or "embedded encoder",
        target=config.target,
        steps=config.max_steps,
        dev_pairs=config.max_dev_pairs,
        select_by=config.select_by,
        start_dev=dev_score(evals[0], config.select_by),
        last_dev=dev_score(evals[-1], config.select_by),
        kept_dev=done.best,
        kept_step=str(done.best_step),
        start_accuracy=evals[0].dev_accuracy,
        last_accuracy=evals[-1].dev_accuracy,
        seconds=timer.seconds,
        device=device_name(),
    )


def compare_run(folder: str) -> dict:
    """The default fine-tune with and without the buffer (one seed), its checkpoints beside each other in
    ``folder``."""
    from stsdemo.buffer_comparison import compare, final_dev
    from stsdemo.default_finetune import default_config

    config = default_config("compare", os.path.join(folder, "compare"))
    with Timer() as timer:
        comparison = compare(config)
    first, second = comparison.pairs[0].configs
    runs = comparison.pairs[0].runs
    return dict(
        steps=config.max_steps,
        dev_pairs=config.max_dev_pairs,
        loss=config.loss,
        target=config.target,
        x0=[first.x0, second.x0],
        status=[run.status for run in runs],
        last_dev=[final_dev(run, config.select_by) for run in runs],
        verdict=str(comparison.result().verdict),
        seconds=timer.seconds,
        device=device_name(),
    )


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.perf.app_default",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--compare", action="store_true", help="time the with/without-buffer comparison instead"
    )
    args = parser.parse_args(argv)
    setup_environment()
    with tempfile.TemporaryDirectory() as folder:
        row = compare_run(folder) if args.compare else default_run(folder)
    update_results("speed", {"app_compare" if args.compare else "app_default": row})
    print(json.dumps(row))
    return row


if __name__ == "__main__":
    main(sys.argv[1:])
