"""The Gradio app, in parts whose file names say what they hold.

* ``state.py``: :class:`~stsdemo.app.state.AppState`, the one object holding what the app keeps in memory
  (loaded models, runs in progress, the training line, benchmark rows) and the locks that guard it.
* ``store.py``: sessions and their run folders on disk (``RunInfo``, ``history.json``, zips, pruning).
* ``models.py``: the model cache, the model dropdowns' choices and what a choice names.
* ``score.py``, ``loss.py``, ``finetune.py``, ``benchmark.py``: one view-model per tab, plain Python
  (no gradio): what each tab computes and shows; ``form.py``: the Fine-tune form, drawn from the settings'
  declarations in :mod:`stsdemo.config`.
* ``compare.py``: *Compare with and without the buffer* (two runs that differ only in ``x0``, one job);
  ``evidence.py``: the project's recorded evidence (``evidence.json``: arms, seeds, verdicts) as the
  Benchmark tab and the header show it.
* ``plots.py``: the tabs' figures and tables (the evidence's own are in ``evidence.py``); ``slots.py``: the line
  long jobs wait in; ``reference.py``: published scores shown beside the benchmark; ``links.py``: links that
  reopen a tab's state (``?tab=loss&k=3&x0=0.1&d=1``), written and read back with every value checked.
* ``ui/``: the Gradio layer: one builder per tab and :func:`~stsdemo.app.ui.build_demo` composing them.

The core (``stsdemo/*.py``) never imports from here. Importing ``stsdemo.app`` itself loads nothing.
"""
