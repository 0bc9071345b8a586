"""Rerun every benchmark, then rebuild docs/results.md and the plots: ``python -m bench.run_all``.

Full size by default (the real protocol: one epoch per arm, 3 seeds for the starred arms, all arms; this
takes many hours on a CPU). ``--max-steps N`` gives every quality arm the same reduced budget, as the
published tables state; ``--quick`` runs everything at tiny sizes (a smoke test, results under ``*quick``
keys). Parts: quality, speed, memory, scaling, report; ``--parts`` picks some.

    python -m bench.run_all
    python -m bench.run_all --max-steps 250 --eval-every 125 --stage1-max-steps 100 --arms main
    python -m bench.run_all --quick
"""

from __future__ import annotations

import argparse
import sys

from .common import log, setup_environment

PARTS = ("quality", "speed", "memory", "scaling", "report")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.run_all", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", default=",".join(PARTS))
    parser.add_argument("--arms", default="all", help="quality arms/groups (default: all)")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--max-steps", type=int, default=None)
    parser.add_argument("--stage1-max-steps", type=int, default=None)
    parser.add_argument("--eval-every", type=int, default=100)
    parser.add_argument("--skip-done", action="store_true", help="quality: skip runs already recorded with this budget")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    setup_environment()
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    quick = ["--quick"] if args.quick else []
    if "quality" in parts:
        from . import quality

        options = ["--arms", args.arms, "--seeds", str(args.seeds), "--eval-every", str(args.eval_every)]
        if args.max_steps:
            options += ["--max-steps", str(args.max_steps)]
        if args.stage1_max_steps:
            options += ["--stage1-max-steps", str(args.stage1_max_steps)]
        if args.skip_done:
            options.append("--skip-done")
        log("== quality")
        quality.main(options + quick)
    if "speed" in parts:
        from . import speed

        log("== speed")
        speed.main(quick)
    if "memory" in parts:
        from . import memory

        log("== memory")
        memory.main(quick)
    if "scaling" in parts:
        from . import scaling

        log("== scaling")
        scaling.main(quick)
    if "report" in parts and not args.quick:
        from . import report

        log("== report")
        report.main([])


if __name__ == "__main__":
    main(sys.argv[1:])
