"""Training losses. Each file holds one concept: a loss's math as a pure function, then its module.

- ``spec.py``: what each loss is, declared once (names, targets, the paper's k and x0); no torch, so the
  settings (:mod:`stsdemo.config`) and ``--help`` read it at once.
- ``translated_relu.py``, ``smooth_k2.py``, ``baselines.py`` (L1, MSE), ``cross_entropy.py``, ``infonce.py``,
  ``pcc.py`` (Pcc-tuning): one loss each, its module class carrying its ``spec`` and its factory ``build``.
- ``base.py`` (what every loss module has), ``buffer.py`` (bounds, clamping, the buffer-zone module).
- ``registry.py``: the modules by name and ``build_loss``.

This package's ``__init__`` imports nothing, so importing ``stsdemo.losses.spec`` does not import torch.
"""
