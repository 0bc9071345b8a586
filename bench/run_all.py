"""Rerun every benchmark, then rebuild docs/results.md and the plots: ``python -m bench.run_all``.

Full size by default (the paper's budget: one epoch per arm, the ``minilm-main`` plan with 3 seeds for its
seeded arms; many hours on a CPU). ``--max-steps N`` gives every quality arm the same reduced budget, as the
published tables state; ``--quick`` runs everything at tiny sizes (a smoke test, results under ``*quick``
keys). Parts: quality, fusion, nli (the NLI arms, 3 seeds), speed, memory, scaling, report; ``--parts`` picks
some. The evidence plan in its order (NLI first, then the MiniLM seeds, the small-data condition, fusion and
all-mpnet-base-v2) is ``python -m bench.evidence``.

    python -m bench.run_all --skip-done
    python -m bench.run_all --model mpnet --arms mpnet-main --seeds 1 --parts quality,fusion,report --skip-done
    python -m bench.run_all --quick
"""

from __future__ import annotations

import argparse
import sys

from .common import log, setup_environment

PARTS = ("quality", "fusion", "nli", "speed", "memory", "scaling", "report")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.run_all",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--parts", default=",".join(PARTS))
    parser.add_argument(
        "--model", default="minilm", help="quality and fusion: minilm, mpnet or a model folder"
    )
    parser.add_argument("--arms", default="minilm-main", help="quality arms/groups (default: minilm-main)")
    parser.add_argument(
        "--seeds",
        type=int,
        default=3,
        choices=(1, 2, 3),
        metavar="N",
        help="how many of the seeds 42, 43, 44 each arm runs: 1 to 3",
    )
    parser.add_argument("--max-steps", type=int, default=None)
    parser.add_argument("--stage1-max-steps", type=int, default=None)
    parser.add_argument("--eval-every", type=int, default=None)
    parser.add_argument("--skip-done", action="store_true", help="quality and fusion: skip what is recorded")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    setup_environment()
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    quick = ["--quick"] if args.quick else []
    if "quality" in parts:
        from .evidence import quality

        options = [
            "--model",
            args.model,
            "--arms",
            args.arms,
            "--seeds",
            "1" if args.quick else str(args.seeds),
        ]
        for flag, value in (
            ("--max-steps", args.max_steps),
            ("--stage1-max-steps", args.stage1_max_steps),
            ("--eval-every", args.eval_every),
        ):
            if value:
                options += [flag, str(value)]
        if args.skip_done:
            options.append("--skip-done")
        log("== quality")
        quality.main(options + quick)
    if "fusion" in parts and (args.quick or not (args.max_steps or args.stage1_max_steps or args.eval_every)):
        from .evidence import fusion

        # the paper's budget (or the quick runs); other budgets: python -m bench.evidence.fusion --budget TAG
        log("== fusion")
        fusion.main(["--model", args.model] + (["--skip-done"] if args.skip_done else []) + quick)
    if "nli" in parts:
        from .evidence import nli

        log("== NLI")
        nli.main(
            ["--seeds", "1" if args.quick else str(args.seeds)]
            + (["--skip-done"] if args.skip_done else [])
            + quick
        )
    if "speed" in parts:
        from .perf import speed

        log("== speed")
        speed.main(quick)
    if "memory" in parts:
        from .perf import memory

        log("== memory")
        memory.main(quick)
    if "scaling" in parts:
        from .perf import scaling

        log("== scaling")
        scaling.main(quick)
    if "report" in parts and not args.quick:
        from .evidence import report

        log("== report")
        report.main([])


if __name__ == "__main__":
    main(sys.argv[1:])
