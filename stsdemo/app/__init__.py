"""The Gradio app: a folder per tab, and the pieces several tabs share beside them.

To change a tab, open its folder; each holds the tab's layout and wiring (``tab.py``, the only part that
imports gradio), its view-model in plain Python (``view.py``: what the tab computes and shows) and its figures:

* ``score/``: *Score a pair* (``figures.py``: the label line a prediction falls on).
* ``playground/``: *Playground*, the Playground's page (``stsdemo/playground/web/``, which trains in the
  visitor's browser) in a frame; ``site.py`` serves it under ``/playground/`` with its data files, uploads and
  export, ``memory.py`` holds the prepared data sets every visitor shares and each visitor's uploads, ``api.py``
  is the ``playground`` API endpoint and MCP tool (which run the Python core). It has no ``view.py``: the page
  is its view.
* ``loss_explorer/``: *Loss explorer*, the Playground page's Loss explorer alone in a frame (the page draws it);
  ``view.py`` is one sample's numbers for the ``loss_at`` API endpoint and MCP tool.
* ``finetune/``: *Fine-tune*: ``form.py`` (the form, drawn from the settings' declarations in
  :mod:`stsdemo.config`), ``compare.py`` (*Compare with and without the buffer*: the core's comparison,
  :mod:`stsdemo.buffer_comparison`, streamed as one job), ``curves.py`` and ``histograms.py`` (its figures).
* ``benchmark/``: *Benchmark*: ``evidence_view.py`` (the recorded evidence, ``evidence.json``, as the tab and the
  header show it), ``tuning_view.py`` (every arm at its own best settings), ``reference.py`` (published scores),
  ``figures.py``.

What several tabs (or the server) share stays at this level, so a file here is never one tab's:

* ``page.py``: the page (header, start-here path, the five tabs) and how the server launches it.
* ``app_state.py``: :class:`~stsdemo.app.app_state.AppState`, the one object holding what the app keeps in
  memory (loaded models, runs in progress, the training line, benchmark rows) and the locks that guard it;
  ``model_cache.py``: loaded models, the model dropdowns' choices, the 7-task result cache.
* ``links.py``: links that reopen a tab's state (``?tab=score&s1=...&gold=4``), written and read back with
  every value checked (their number and true/false text read by :mod:`stsdemo.value_text`, as raw API calls
  are); ``lesson.py``: the start-here path.
* ``progress.py``: progress, time left, durations in words and the bar they show in; ``figure_style.py``: the
  palette and shapes every tab's figures use; ``task_tables.py``: the 7-task score tables (Fine-tune and
  Benchmark).
* ``ui/``: the Gradio pieces every ``tab.py`` uses: error toasts (``common.py``), the link controls
  (``share.py``) and the REST/MCP tools (``tools.py``).

What a visitor of the public server may do (sessions and their files, uploads, the training line, the fair queue,
the caps and the budget, the raw REST reading rules and every workaround for Gradio) is :mod:`stsdemo.serving`,
which the tabs import and which imports nothing from here.

A tab folder's ``__init__.py`` imports nothing, so its parts import each other and the shared modules without a
circle. The core (``stsdemo/*.py``) never imports from here, and neither imports ``bench``. Importing
``stsdemo.app`` itself loads nothing.
"""
