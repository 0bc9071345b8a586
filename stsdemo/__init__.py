"""stsdemo: the regression framework for semantic textual similarity of Zhang & Li (2024), arXiv 2406.05326.

Ordered labels become evenly spaced nodes on a line; a Siamese encoder predicts one float per pair and is
trained with the buffer-zone losses Translated ReLU and Smooth K2.
"""

from . import library_warnings

__version__ = "0.1.0"

library_warnings.install()  # exact filters for library warnings the project cannot fix at their cause
