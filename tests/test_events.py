"""Typed events end to end: every kind survives ``history.json`` as itself, and older histories still read."""

from __future__ import annotations

import json

import pytest

from stsdemo.events import (
    EVENT_TYPES,
    DoneEvent,
    EvalEvent,
    Event,
    FinalEvalEvent,
    StageStep,
    StartEvent,
    StepEvent,
)

EVENTS = [
    StartEvent(
        1, "head on nli (encoder frozen)", 48, 6, "cpu", 1, "/runs/a/checkpoint", {"loss": "sk2", "x0": 0.25}
    ),
    EvalEvent(
        1,
        0,
        6,
        71.5,
        12.25,
        0.25,
        71.5,
        StageStep(1, 0),
        True,
        1.5,
        {"width": 0.05, "counts": [1, 2, 0]},
        x0=0.25,
        gap=1.0,
    ),
    StepEvent(1, 2, 6, 0.75, 2e-5, 0.5, 120.0, 2.5),
    StepEvent(2, 4, 6, 0.5, 1e-5, None, 110.0, 3.5),
    DoneEvent("finished", "", 72.0, StageStep(2, 3), "/runs/a/checkpoint", 9, 115.0, 9.5),
    FinalEvalEvent("fine-tuned", 0, 2, 0.5),
    FinalEvalEvent("base", 1, 2, 1.0, {"STS12": 70.0, "Avg.": 70.0}),
]


def test_every_event_type_is_in_the_round_trip():
    assert {type(event) for event in EVENTS} == set(EVENT_TYPES.values()) == set(Event.__subclasses__())


def test_every_event_type_survives_history_json(tmp_path, monkeypatch):
    from stsdemo.serving import session_files

    monkeypatch.setenv("STSDEMO_OUTPUT_DIR", str(tmp_path))
    info = session_files.RunInfo("run-1", "#1 sk2", events=list(EVENTS), best=72.0, best_step=StageStep(2, 3))
    session_files.session_run_folder("s1", "run-1").mkdir(parents=True)
    session_files.save_run("s1", info)
    written = json.loads(
        (session_files.session_run_folder("s1", "run-1") / session_files.HISTORY_NAME).read_text()
    )
    assert [e["event"] for e in written["events"]] == [
        "start",
        "eval",
        "step",
        "step",
        "done",
        "final_eval",
        "final_eval",
    ]
    assert written["best_step"] == [2, 3] and written["events"][1]["best_step"] == [1, 0]
    again = session_files.load_run("s1", "run-1")
    assert again.events == EVENTS and again == info
    assert all(type(a) is type(b) for a, b in zip(again.events, EVENTS))
    assert again.best_step.stage == 2 and again.best_step.step == 3 and str(again.best_step) == "2:3"


def test_a_history_written_before_typed_events_still_reads(tmp_path, monkeypatch):
    from stsdemo.serving import session_files

    monkeypatch.setenv("STSDEMO_OUTPUT_DIR", str(tmp_path))
    old = [dict(EVENTS[1].to_dict(), best_step="1:0"), dict(EVENTS[4].to_dict(), best_step="2:3")]
    folder = session_files.session_run_folder("s1", "old")
    folder.mkdir(parents=True)
    (folder / session_files.HISTORY_NAME).write_text(
        json.dumps({"run_id": "old", "label": "#1", "events": old, "best": 72.0, "best_step": "2:3"})
    )
    info = session_files.load_run("s1", "old")
    assert info.events == [EVENTS[1], EVENTS[4]] and info.best_step == (2, 3)
    (folder / session_files.HISTORY_NAME).write_text(
        json.dumps({"run_id": "old", "label": "#1", "best_step": ""})
    )
    assert session_files.load_run("s1", "old").best_step is None  # a run that had no evaluation yet


@pytest.mark.parametrize(
    "stopped, reason, outcome, message",
    [
        (False, "finished", "finished", ""),
        (True, "stopped", "stopped", ""),
        (
            True,
            "out of memory (OutOfMemoryError) after 2 steps",
            "failed",
            "out of memory (OutOfMemoryError) after 2 steps",
        ),
    ],
)
def test_a_done_event_written_before_outcomes_reads_as_its_outcome(stopped, reason, outcome, message):
    old = {key: value for key, value in EVENTS[4].to_dict().items() if key not in ("outcome", "message")}
    done = Event.from_dict({**old, "stopped": stopped, "reason": reason})
    assert (done.outcome, done.message) == (outcome, message) and done.best_step == (2, 3)


def test_start_up_recovery_leaves_the_runs_of_this_server_and_ended_runs_alone(tmp_path, monkeypatch):
    from stsdemo.serving import session_files

    monkeypatch.setenv("STSDEMO_OUTPUT_DIR", str(tmp_path))
    for run_id, status, owner in (
        ("ours", "running", session_files.PROCESS),
        ("done", "finished", "gone"),
        ("orphan", "running", "gone"),
    ):
        session_files.session_run_folder("s1", run_id).mkdir(parents=True)
        session_files.save_run("s1", session_files.RunInfo(run_id, run_id, status=status, owner=owner))
    assert session_files.recover_interrupted() == [("s1", "orphan")]
    assert [r.status for r in session_files.list_runs("s1")] == ["running", "finished", "interrupted"]
    assert (
        session_files.load_run("s1", "orphan").message
        == "the server stopped while it trained; no checkpoint was written"
    )


def test_an_unknown_event_is_refused():
    with pytest.raises(ValueError, match="unknown event 'epoch'"):
        Event.from_dict({"event": "epoch", "step": 1})
