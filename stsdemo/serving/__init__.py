"""What a visitor of the public server (the Space) may do, and how that is held, in one folder:

* visitors and their places in line: ``slots.py`` (who a visitor is, the line long jobs wait in) and
  ``fair_queue.py`` (each visitor held to their share of Gradio's queue);
* the caps, declared once (``caps.py``), and the budget a fine-tune is held to (``budget.py``) with its cost model
  (``run_cost.py``) and the GPU time it asks for (``gpu_time.py``);
* files: sessions and their runs on disk, swept and recovered (``session_files.py``), uploads held to each
  visitor's share (``uploads.py``);
* the Gradio request seam: every raw call read strictly (``rest.py``) and every workaround for Gradio itself
  (``gradio_seam.py``, the only module here that imports gradio).

The tabs (``stsdemo.app``) import this; it imports no tab and nothing of ``stsdemo.app``: what it needs from a tab
is passed in. The core reads the declarations (the caps, the budget) but none of the Gradio side. None of it acts
for the static site (``stsdemo.static_site``), which has no server: its page runs in the visitor's browser.
Importing ``stsdemo.serving`` itself loads nothing.
"""
