"""The app's default fine-tune as a visitor starts it: the Fine-tune form at its defaults, run to the end.

    python -m bench.app_default            # prints one JSON line and records it under speed/app_default

The form's defaults go through the app's own :func:`stsdemo.app.form.build_config` (so the start model, the
target, the step count and the dev slice are the ones a visitor gets), then the training loop runs them;
reported: STS-B dev at step 0 (the start), at the last step and at the kept checkpoint, and the wall time.
"""

from __future__ import annotations

import json
import os
import tempfile

from .common import Timer, device_name, setup_environment, update_results


def main() -> dict:
    setup_environment()
    with tempfile.TemporaryDirectory() as folder:
        os.environ["STSDEMO_OUTPUT_DIR"] = folder
        from stsdemo.app import form
        from stsdemo.train import DoneEvent, EvalEvent, train

        config = form.build_config("bench", "default-run", form.form_defaults())
        with Timer() as timer:
            events = list(train(config))
    evals = [e for e in events if isinstance(e, EvalEvent)]
    done = next(e for e in events if isinstance(e, DoneEvent))
    primary = "dev_head" if config.select_by == "head" else "dev_cosine"
    row = dict(start=config.model or "embedded encoder", target=config.target, steps=config.max_steps,
               dev_pairs=config.max_dev_pairs, select_by=config.select_by,
               start_dev=getattr(evals[0], primary), last_dev=getattr(evals[-1], primary), kept_dev=done.best,
               kept_step=done.best_step, start_accuracy=evals[0].dev_accuracy, last_accuracy=evals[-1].dev_accuracy,
               seconds=timer.seconds, device=device_name())
    update_results("speed", {"app_default": row})
    print(json.dumps(row))
    return row


if __name__ == "__main__":
    main()
