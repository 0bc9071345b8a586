"""The Gradio app, in parts whose file names say what they hold.

* ``app_state.py``: :class:`~stsdemo.app.app_state.AppState`, the one object holding what the app keeps in memory
  (loaded models, runs in progress, the training line, benchmark rows) and the locks that guard it.
* ``session_files.py``: sessions and their run folders on disk (``RunInfo``, ``history.json``, zips, pruning, the
  start-up recovery of runs a killed server left ``running``).
* ``model_cache.py``: the model cache, the model dropdowns' choices, what a choice names, the app's 7-task
  result cache.
* ``score/view.py``, ``loss_explorer/view.py``, ``finetune_view.py``, ``benchmark_view.py``: one view-model per tab, plain
  Python (no gradio): what each tab computes and shows; ``form.py``: the Fine-tune form, drawn from the settings'
  declarations in :mod:`stsdemo.config`; ``progress.py``: progress, time left and durations in words.
* ``compare_view.py``: *Compare with and without the buffer* (pairs of runs that differ only in ``x0``, at 1 to
  3 seeds, one job);
  ``evidence_view.py``: the project's recorded evidence (``evidence.json``: arms, seeds, verdicts) as the
  Benchmark tab and the header show it; ``tuning_view.py``: the tuned evidence (every arm at its own best
  settings) as the Benchmark tab shows it.
* ``playground_site.py``: the *Playground*'s page (``stsdemo/playground/web/``, which trains in the visitor's
  browser) served under ``/playground/``, with its data files, uploads and export; ``playground_memory.py``: the
  prepared data sets every visitor shares and each visitor's uploaded pairs; ``playground_api.py``: the
  ``playground`` API endpoint and MCP tool, which run the Python core.
* ``lesson.py``: the start-here path at the top of the app and the README.
* ``score/``, ``loss_explorer/``, ``finetune/``, ``benchmark/``: each tab's figures; ``figure_style.py``: the
  palette and shapes they share; ``task_tables.py``: the 7-task score tables; ``slots.py``: the
  line long jobs wait in; ``reference.py``: published scores shown beside the benchmark; ``links.py``: links that
  reopen a tab's state (``?tab=loss&k=3&x0=0.1&d=1``), written and read back with every value checked.
* ``page.py``: :func:`~stsdemo.app.page.build_demo` composing the tabs; ``ui/``: the Gradio layer: one builder
  per tab, and ``rest.py`` (a raw REST call may leave optional arguments out).

The core (``stsdemo/*.py``) never imports from here, and neither imports ``bench``. Importing ``stsdemo.app``
itself loads nothing.
"""
