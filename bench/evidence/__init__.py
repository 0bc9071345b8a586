"""The evidence: the runs behind the project's claims about the paper and the report that renders them
(README.md beside this file lists the commands). ``python -m bench.evidence`` runs the evidence plan
(:mod:`bench.evidence.plan`)."""
