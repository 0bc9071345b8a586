"""The fair queue (issues 40 and 51): every queued or running event counts against its visitor (session and
client address, an IPv6 one by its /64), over the caps of stsdemo.serving.caps the rest are refused at once, a busy
address's sessions each get their share, and another visitor's cheap read still answers while one client
floods (from one address, or from a fresh address in one /64 for every call)."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import gradio as gr
import httpx
import pytest

from stsdemo.serving import caps, fair_queue, gradio_seam
from stsdemo.serving.fair_queue import Holder


def test_a_class_behind_one_address_gets_its_places_and_a_busy_session_its_share(monkeypatch):
    """30 sessions at one address each waiting on one call, beside one session firing calls: every one of the
    30 gets its place, the firing session is held to its share of the busy address (40 places / 31 sessions:
    1)."""
    monkeypatch.delenv("STSDEMO_EVENTS_PER_ADDRESS", raising=False)
    school = "address 8.8.8.8"
    held = [Holder("flooder", school)]
    for student in range(30):
        assert fair_queue.refusal(held, Holder(f"student{student}", school)) is None
        held.append(Holder(f"student{student}", school))
    refused = fair_queue.refusal(held, Holder("flooder", school))
    assert "share is 1" in refused and "yours has 1" in refused
    quiet = [Holder("flooder", school)] * 3  # an idle address: its session cap only
    assert fair_queue.refusal(quiet, Holder("flooder", school)) is None


def test_a_session_and_an_address_are_each_held_to_their_caps(monkeypatch):
    monkeypatch.setenv("STSDEMO_EVENTS_PER_SESSION", "2")
    monkeypatch.setenv("STSDEMO_EVENTS_PER_ADDRESS", "3")
    held = [Holder("a", None), Holder("a", None)]
    assert "2 requests queued or running (at most 2 per visitor" in fair_queue.refusal(
        held, Holder("a", None)
    )
    assert fair_queue.refusal(held, Holder("b", None)) is None  # another session
    at_one_address = [Holder(f"s{i}", "address 8.8.8.8") for i in range(3)]
    assert "at most 3 per address" in fair_queue.refusal(at_one_address, Holder("fresh", "address 8.8.8.8"))
    assert fair_queue.refusal(at_one_address, Holder("fresh", "address 1.1.1.1")) is None
    assert fair_queue.refusal(at_one_address, Holder("fresh", None)) is None  # unknown address: its session


def held_app(queue_size: int):
    """A queued app with the fair queue: ``hold`` (one at a time, until ``release`` is set) and ``upper``."""
    release = threading.Event()

    def hold() -> str:
        release.wait(60)
        return "held"

    def upper(text: str) -> str:
        return text.upper()

    with gr.Blocks() as demo:
        gr.api(hold, api_name="hold", concurrency_id="slow", concurrency_limit=1)
        gr.api(upper, api_name="upper", concurrency_id="fast", concurrency_limit=4)
        demo.queue(max_size=queue_size)
        gradio_seam.fair_queue(demo)
    _, url, _ = demo.launch(prevent_thread_lock=True, app_kwargs={"middleware": []})
    return demo, url, release


def call(url: str, name: str, data: list, address: str) -> httpx.Response:
    return httpx.post(
        f"{url}gradio_api/call/{name}", json={"data": data}, timeout=30, headers={"x-forwarded-for": address}
    )


@pytest.mark.slow
def test_one_client_floods_and_another_visitors_read_still_answers(monkeypatch):
    """40 calls from one address behind the Space's proxy: its cap is queued or running, the rest refused with 429
    at once; a visitor at another address is answered meanwhile, and the flooder again once its calls end."""
    monkeypatch.setenv("STSDEMO_PROXY_HOPS", "1")
    monkeypatch.setenv("STSDEMO_EVENTS_PER_ADDRESS", "5")
    demo, url, release = held_app(32)
    try:
        with ThreadPoolExecutor(8) as pool:
            flood = list(pool.map(lambda _: call(url, "hold", [], "8.8.8.8"), range(40)))
        accepted = [answer for answer in flood if answer.status_code == 200]
        refused = [answer for answer in flood if answer.status_code == 429]
        assert len(accepted) == 5 and len(refused) == 35, [answer.status_code for answer in flood]
        assert "at most 5 per address" in refused[0].json()["detail"]
        posted = call(url, "upper", ["a man plays"], "1.1.1.1")
        assert posted.status_code == 200
        result = httpx.get(f"{url}gradio_api/call/upper/{posted.json()['event_id']}", timeout=30).text
        assert "event: complete" in result and json.dumps(["A MAN PLAYS"]) in result
        release.set()
        for answer in accepted:
            assert (
                "held" in httpx.get(f"{url}gradio_api/call/hold/{answer.json()['event_id']}", timeout=30).text
            )
        assert call(url, "hold", [], "8.8.8.8").status_code == 200  # its places are free again
    finally:
        release.set()
        demo.close()


@pytest.mark.slow
def test_fresh_addresses_in_one_ipv6_64_are_one_visitor_and_the_queue_stays_open(monkeypatch):
    """70 parallel calls behind the Space's proxy, each from its own address in one /64 (issue 51: they filled
    the queue, and every other visitor got 503 "Queue is full"): the /64 is held to one address's places, and
    a visitor elsewhere is answered."""
    monkeypatch.setenv("STSDEMO_PROXY_HOPS", "1")
    monkeypatch.delenv("STSDEMO_EVENTS_PER_ADDRESS", raising=False)
    per_address = int(caps.value("events_per_address"))
    demo, url, release = held_app(int(caps.value("queue_size")))
    try:
        with ThreadPoolExecutor(8) as pool:
            flood = list(
                pool.map(lambda i: call(url, "hold", [], f"2a00:1450:4001:81c::{i + 1:x}"), range(70))
            )
        statuses = [answer.status_code for answer in flood]
        assert statuses.count(200) == per_address and statuses.count(429) == 70 - per_address, statuses
        assert "per address" in next(a for a in flood if a.status_code == 429).json()["detail"]
        posted = call(url, "upper", ["a man plays"], "2a00:1450:4001:81d::1")  # the next /64: another visitor
        assert posted.status_code == 200, posted.text
        result = httpx.get(f"{url}gradio_api/call/upper/{posted.json()['event_id']}", timeout=30).text
        assert "A MAN PLAYS" in result
    finally:
        release.set()
        demo.close()
