"""``python -m bench.evidence``: the evidence plan (:mod:`bench.evidence.plan`)."""

import sys

from .plan import main

main(sys.argv[1:])
