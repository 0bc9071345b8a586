"""Only a page's newest Loss explorer redraw is drawn (stsdemo.app.loss_explorer.redraws)."""

import threading

from stsdemo.app.loss_explorer.redraws import NewestRedraw


def test_a_redraw_overtaken_while_it_draws_answers_nothing_and_the_newer_one_draws():
    newest = NewestRedraw()

    def stale():
        newest.note("page", 2)   # the link's next field arrives while the first redraw draws
        return "k 3, x0 0.25"

    assert newest.draw("page", 1, stale) is None
    assert newest.draw("page", 2, lambda: "k 3, x0 0.1") == "k 3, x0 0.1"


def test_an_older_redraw_that_arrives_late_is_not_drawn_at_all():
    newest = NewestRedraw()
    assert newest.draw("page", 5, lambda: "new") == "new"
    drawn = []
    assert newest.draw("page", 4, lambda: drawn.append("old")) is None
    assert drawn == []
    assert newest.draw("page", 5, lambda: "again") == "again"   # the same number twice (a repeated trigger) draws


def test_pages_are_apart_and_the_longest_unseen_page_is_forgotten():
    newest = NewestRedraw(pages=2)
    assert newest.draw("a", 9, lambda: "a9") == "a9"
    assert newest.draw("b", 1, lambda: "b1") == "b1"   # another page's numbers do not count against it
    assert newest.draw("c", 1, lambda: "c1") == "c1"   # "a" is forgotten now: three pages, room for two
    assert newest.draw("a", 1, lambda: "a1") == "a1"
    assert newest.draw("c", 0, lambda: "c0") is None   # "c" is still remembered


def test_a_page_draws_one_redraw_at_a_time():
    newest, inside, most = NewestRedraw(), [], []
    lock = threading.Lock()

    def redraw():
        with lock:
            inside.append(1)
            most.append(len(inside))
        threading.Event().wait(0.01)
        with lock:
            inside.pop()
        return True

    threads = [threading.Thread(target=newest.draw, args=("page", 1, redraw)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most == [1, 1, 1, 1]
