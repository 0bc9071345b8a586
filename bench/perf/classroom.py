"""A class behind one address (issue 51): 30 students' sessions at the school's one public address, each
calling ``loss_at`` and ``score_pair`` one call at a time with a pause between, beside a flooder at the same
address who fires ``score_pair`` 16 at a time with no pause. The app (``python app.py``, started here behind
one trusted proxy hop, every call's X-Forwarded-For the school's address) holds them to the fair queue's caps:
40 places an address, 4 a session, and while the address is busy each session its share (:mod:`stsdemo.serving.caps`).

Two rounds: the flooder in one session, then with a fresh session for every call (one client opening many
sessions). Each round prints and records the students' calls, refusals (429 over a cap, 503 queue full) and
latency, and the flooder's calls and refusals: in one session, which cap each refusal named; with fresh
sessions, the most of its calls accepted and not yet answered at once (what it held of the queue, seen from
the client).

    python -m bench.perf.classroom            # 30 students, 45 s a round
    python -m bench.perf.classroom --quick    # 6 students, 15 s a round: a smoke test

Records go to ``docs/results.json`` under ``load.one_address`` (``load.one_address_quick``) with the machine,
its load before and after, the caps in force and the rounds. bench imports nothing of ``stsdemo.app``: the app
is served in a process of its own (:mod:`.served_app`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import re
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from stsdemo.serving import caps

from ..common import log, machine, machine_load, out_dir, update_results
from .load import PAIRS, Tally
from .served_app import serve_app

SCHOOL = "8.8.8.8"  # the school's one public address, as the Space's proxy writes it
STUDENTS, QUICK_STUDENTS = 30, 6
ROUND_SECONDS, QUICK_SECONDS = 45.0, 15.0
THINK_SECONDS = (1.0, 3.0)  # a student's pause between calls
FLOOD_AT_ONCE = 16  # the flooder's calls in the air at once, with no pause
REFUSALS = ("http 429", "http 503")


class InFlight:
    """The most calls of one caller accepted and not yet answered at once."""

    def __init__(self):
        self.now = self.most = 0
        self.lock = threading.Lock()

    def change(self, by: int) -> None:
        with self.lock:
            self.now += by
            self.most = max(self.most, self.now)


def call(
    client, url: str, name: str, data: list, session: str, held: InFlight | None = None
) -> tuple[str, float]:
    """One REST v1 call (its session named, from the school's address) and its result stream: ``(outcome,
    seconds)``."""
    started = time.perf_counter()
    headers = {"x-forwarded-for": SCHOOL}
    posted = client.post(
        f"{url}gradio_api/call/{name}", json={"data": data, "session_hash": session}, headers=headers
    )
    if posted.status_code != 200:
        return f"http {posted.status_code}", time.perf_counter() - started
    if held:
        held.change(+1)
    try:
        stream = client.get(f"{url}gradio_api/call/{name}/{posted.json()['event_id']}", headers=headers).text
    finally:
        if held:
            held.change(-1)
    outcome = "ok" if "complete" in re.findall(r"^event: (\w+)$", stream, re.M) else "error"
    return outcome, time.perf_counter() - started


def student(number: int, url: str, until: float, tally: Tally) -> None:
    """One student's session: ``loss_at`` and ``score_pair`` in turn, one call at a time, a pause between."""
    import httpx

    rng, session = random.Random(number), f"student-{number:02d}"
    with httpx.Client(timeout=300) as client:
        time.sleep(rng.uniform(*THINK_SECONDS))  # they arrive spread out
        for turn in itertools.count():
            if time.time() >= until:
                return
            if turn % 2:
                tally.add(*call(client, url, "score_pair", list(rng.choice(PAIRS)), session))
            else:
                point = [round(rng.uniform(0, 5), 2), float(rng.randint(0, 5))]
                tally.add(*call(client, url, "loss_at", point, session))
            time.sleep(rng.uniform(*THINK_SECONDS))


def flooder(
    url: str, until: float, tally: Tally, held: InFlight, reasons: dict, fresh_sessions: bool
) -> None:
    """:data:`FLOOD_AT_ONCE` callers firing ``score_pair`` without a pause (after a refusal, 50 ms), in one
    session or a fresh one a call. In one session it only posts: Gradio 6.31 streams a session's results to
    whichever of its open result streams reads first, so parallel streams of one session wait for each
    other's. ``reasons``: how many refusals said what (the session's cap, its share of the busy address, the
    address's cap)."""
    import httpx

    numbers = itertools.count()

    def fire(_) -> None:
        with httpx.Client(timeout=300) as client:
            while time.time() < until:
                session = f"flood-{next(numbers)}" if fresh_sessions else "flooder"
                if fresh_sessions:
                    outcome, seconds = call(client, url, "score_pair", list(PAIRS[0]), session, held)
                    tally.add(outcome, seconds)
                    if outcome.startswith("http"):
                        time.sleep(0.05)
                    continue
                posted = client.post(
                    f"{url}gradio_api/call/score_pair",
                    headers={"x-forwarded-for": SCHOOL},
                    json={"data": list(PAIRS[0]), "session_hash": session},
                )
                tally.add("accepted" if posted.status_code == 200 else f"http {posted.status_code}")
                if posted.status_code != 200:
                    reason = refusal_kind(posted)
                    with held.lock:
                        reasons[reason] = reasons.get(reason, 0) + 1
                    time.sleep(0.05)

    with ThreadPoolExecutor(FLOOD_AT_ONCE) as pool:
        list(pool.map(fire, range(FLOOD_AT_ONCE)))


def refusal_kind(answer) -> str:
    """Which cap a 429 names (the fair queue's words), or its status."""
    try:
        detail = str(answer.json().get("detail"))
    except ValueError:
        return f"http {answer.status_code}"
    share = re.search(r"share is (\d+)", detail)
    if share:
        return f"its share of the busy address ({share[1]})"
    if "per visitor" in detail:
        return "the session's cap"
    return "the address's cap" if "per address" in detail else f"http {answer.status_code}"


def play_round(url: str, students: int, seconds: float, fresh_sessions: bool) -> dict:
    """One round: the class and the flooder together for ``seconds``; what each got."""
    until = time.time() + seconds
    class_tally, flood_tally, held, reasons = Tally(), Tally(), InFlight(), {}
    threads = [
        threading.Thread(target=student, args=(number, url, until, class_tally)) for number in range(students)
    ]
    threads.append(
        threading.Thread(target=flooder, args=(url, until, flood_tally, held, reasons, fresh_sessions))
    )
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    students_summary, flood_summary = class_tally.summary(), flood_tally.summary()
    return {
        "students": students_summary,
        "students_refused": sum(students_summary["outcomes"].get(kind, 0) for kind in REFUSALS),
        "flooder": flood_summary,
        "flooder_refused": sum(flood_summary["outcomes"].get(kind, 0) for kind in REFUSALS),
        **({"flooder_most_in_flight": held.most} if fresh_sessions else {"flooder_refused_by": reasons}),
    }


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m bench.perf.classroom",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="6 students, 15 s a round")
    args = parser.parse_args(argv)
    students, seconds = (QUICK_STUDENTS, QUICK_SECONDS) if args.quick else (STUDENTS, ROUND_SECONDS)
    before = machine_load()
    with serve_app(out_dir() / "classroom-app", STSDEMO_PROXY_HOPS="1") as app:
        log(f"{students} students and a flooder at one address against {app.url}, {seconds:g} s a round")
        score_warm = call_once(app.url)  # the scorer loaded before the class arrives
        rounds = {}
        for name, fresh in (("one_session_flooder", False), ("fresh_session_flooder", True)):
            rounds[name] = play_round(app.url, students, seconds, fresh)
            log(
                name,
                json.dumps(
                    {key: value for key, value in rounds[name].items() if key not in ("students", "flooder")}
                ),
                "students p50/p95",
                rounds[name]["students"]["p50_s"],
                rounds[name]["students"]["p95_s"],
            )
    record = {
        "machine": machine(),
        **machine_load(before),
        "students": students,
        "seconds_a_round": seconds,
        "address": f"one ({SCHOOL} in X-Forwarded-For, behind 1 trusted proxy hop)",
        "flood_at_once": FLOOD_AT_ONCE,
        "think_seconds": list(THINK_SECONDS),
        "first_score_s": score_warm,
        "caps": {
            name: caps.value(name) for name in ("events_per_session", "events_per_address", "queue_size")
        },
        "rounds": rounds,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    update_results("load", {"one_address_quick" if args.quick else "one_address": record})
    return record


def call_once(url: str) -> float:
    """One scoring call before the round (the app loads its scorer on first use): its seconds."""
    import httpx

    with httpx.Client(timeout=300) as client:
        outcome, seconds = call(client, url, "score_pair", list(PAIRS[0]), "warm-up")
    if outcome != "ok":
        raise RuntimeError(f"the app did not score a pair before the class came: {outcome}")
    return round(seconds, 2)


if __name__ == "__main__":
    sys.exit(0 if main() else 2)
