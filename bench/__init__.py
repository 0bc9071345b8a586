"""Benchmarks for stsdemo: quality (7-task SentEval), weight-space fusion, speed, memory and scaling.

Each part runs alone (``python -m bench.quality --help``) and ``python -m bench.run_all`` reruns them all.
Results are merged into ``docs/results.json`` section by section; ``python -m bench.report`` turns that
file into the tables of ``docs/results.md`` (with the verdicts of ``bench.claims``) and the plots in
``assets/``. ``python -m bench.mpnet`` assembles all-mpnet-base-v2 for ``--model mpnet``.
"""
