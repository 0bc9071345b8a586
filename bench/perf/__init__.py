"""Performance: what the code and the served app cost in time, memory and disk (README.md beside this file lists
the commands). The evidence about the paper is in :mod:`bench.evidence`."""
