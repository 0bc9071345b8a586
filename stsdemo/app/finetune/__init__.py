"""The *Fine-tune* tab: its form, a run streamed as curves and histograms, the run's results and files, and the
with/without-buffer comparison."""
