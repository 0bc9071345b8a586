"""Benchmarks for stsdemo, in two packages by purpose.

* ``bench.evidence``: what the project claims about the paper (7-task SentEval quality, NLI, weight-space fusion, the
  tuning, the Playground's payoff map and presets) and the report that renders it: ``python -m bench.evidence``
  runs the evidence plan, ``python -m bench.evidence.report`` turns ``docs/results.json`` into the tables of
  ``docs/results.md`` (with the verdicts of ``bench.evidence.claims``), the plots in ``assets/`` and the app's
  evidence file.
* ``bench.perf``: what the code costs (speed, memory, disk, scaling, the served app under load, the Playground in a
  browser).

Here, shared by both: ``common`` (the results file, the machine, timing), ``schema`` (the file's layout), ``sweep``
(a grid run serially or on Ray) and ``run_all`` (``python -m bench.run_all`` reruns them all). Results are merged
into ``docs/results.json`` section by section. Each part runs alone (``python -m bench.evidence.quality --help``).
"""
