"""The Playground's core: the paper's head trained on frozen sentence embeddings, fast enough to watch.

One concept per file; nothing here imports gradio, so the app, the API, the benchmarks and the tests share it.

- ``config.py``: every Playground setting declared once (limits, default, help), the cross-field checks.
- ``datasets.py``: the pairs a run trains on and is measured on (STS-B train / dev, SNLI dev split).
- ``embeddings.py``: each distinct sentence embedded once by an encoder, cached on disk (safetensors).
- ``prepared.py``: a data set with its sentences embedded (default encoder: the embedded all-MiniLM-L6-v2).
- ``pinned.py``: the built-in sets as pinned files that ship with the package (``data/``), checked by sha256.
- ``engine.py``: the page's engine (``web/*.js``) run in an embedded JavaScript engine (V8 or QuickJS).
- ``metrics.py``: held-out Spearman, node accuracy, mean |error|, the share inside the buffer, for all heads.
- ``run.py``: a run of the buffered loss and its no-buffer twin through that engine, and :func:`run.run_seeds`.
- ``payoff.py``: where the buffer pays off: the grid of noise x training size, and the reading of a map.

Importing the package loads nothing.
"""
