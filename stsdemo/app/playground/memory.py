"""What the app keeps in memory for the Playground: the prepared data sets, shared by every visitor (the page's
data files and the API's runs read them), and each visitor's uploaded pairs.

A data set is prepared once per encoder (its sentences embedded, :mod:`stsdemo.playground.embeddings`, read from
the disk cache when it holds them) in a background thread, one encoding at a time; whoever needs it waits and
watches its progress. The least recently used prepared sets beyond :data:`MAX_PREPARED` are dropped.

A visitor's upload lives under their page's session key, within the client address it came from (the one the
caps trust: :func:`stsdemo.serving.slots.client_address`; the session is a field the page writes). Uploads are
evicted among uploads only, least recently used first: beyond ``playground_uploads`` or
``playground_kept_bytes`` (:mod:`stsdemo.serving.caps`) an address's own; beyond :data:`MAX_SESSIONS`
anyone's. Their embeddings are prepared and cached apart from the built-in sets' (:data:`MAX_UPLOADS_PREPARED`
in memory, :data:`UPLOAD_CACHE` on disk), so no number of uploads pushes a built-in set out.
No run lives here: the page trains in the visitor's browser.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ...errors import InputError
from ...model_source import resolve_model
from ...playground import pinned
from ...playground.compact import compact_bytes
from ...playground.config import BUILT_IN_DATA, UPLOADED
from ...playground.datasets import PlaygroundData, load_playground_data
from ...playground.embeddings import Embeddings, Encoder, cache_folder, embed_sentences, encoder_from
from ...playground.run import Source, pinned_source
from ...playground.uploaded import UploadedData, load_uploaded_pairs
from ...serving import caps
from .. import model_cache

MAX_PREPARED = 3  # built-in sets x encoders kept in memory (each some 50 to 100 MB with its features)
MAX_UPLOADS_PREPARED = 8  # uploads' embeddings kept in memory (at most 5,000 pairs each: some 10 MB)
MAX_SESSIONS = 64  # visitors' uploads kept (each a few thousand pairs' sentences and labels)
UPLOAD_CACHE = "uploads"  # the uploads' own folder in the embeddings' cache, pruned apart from the built-ins'
BAR_CELLS = 20  # characters of the text progress bar a waiting visitor reads


@dataclass
class Prepared:
    """A data set embedded by one encoder, as the engine reads it (``source``: its compact file's bytes)."""

    data: PlaygroundData
    encoder: str
    source: Source

    @classmethod
    def embedded(cls, data: PlaygroundData, embeddings: Embeddings, encoder: str) -> Prepared:
        return cls(data, encoder, Source(compact_bytes(data, embeddings.codes, embeddings.scales, encoder)))

    @classmethod
    def pinned(cls, name: str) -> Prepared:
        """A built-in set with the default encoder: its pinned file (:mod:`stsdemo.playground.pinned`), never
        embedded here."""
        return cls(pinned.load(name), pinned.encoder_name(), pinned_source(name))


class Preparation:
    """One data set being prepared for one encoder: its progress, then its result or its error."""

    def __init__(self, what: str):
        self.what, self.done, self.fraction = what, threading.Event(), 0.0
        self.result: Prepared | None = None
        self.error: Exception | None = None
        self.started: float | None = None  # when its encoding began (it may wait for another's first)

    def report(self, done: int, total: int) -> None:
        if self.started is None:
            self.started = time.monotonic()
        self.fraction = done / max(total, 1)

    def seconds_left(self) -> float | None:
        """The time left at the pace so far (None before a tenth of a second's progress can be read)."""
        if self.started is None or self.fraction <= 0.02:
            return None
        elapsed = time.monotonic() - self.started
        return elapsed * (1 - self.fraction) / self.fraction

    def progress_text(self) -> str:
        """What a waiting visitor reads: what is embedded, how far along and the time left."""
        left = self.seconds_left()
        eta = "estimating the time left" if left is None else f"about {max(1, round(left)):,} s left"
        filled = round(BAR_CELLS * self.fraction)
        return (
            f"Embedding the sentences of {self.what}: {'█' * filled}{'░' * (BAR_CELLS - filled)} "
            f"{self.fraction:.0%} ({eta}; once, then cached)."
        )


@dataclass
class SessionRun:
    """A visitor's page: the pairs they uploaded (the data set ``upload`` names for them) and their embedding."""

    uploaded: UploadedData | None = None
    embedding: Preparation | None = None  # the preparation of their last upload
    address: str | None = None  # the client address it came from (None: unknown)
    size: int = 0  # bytes of the file uploaded


EncoderFor = Callable[[str, str, str], Encoder]  # (where the model is, its name to load, its name for people)


class PlaygroundMemory:
    """The prepared data sets and the visitors' runs. ``models``: the app's model cache (encoders load through it);
    ``max_pairs``: cut a data set embedded for another encoder than the default to this many evenly spread pairs
    (tests, quick demos; the default encoder's built-in sets are pinned whole); ``encoder_for``: how a
    model becomes an :class:`~stsdemo.playground.embeddings.Encoder` (default: its files' fingerprint, loaded
    through ``models`` when sentences must be encoded)."""

    def __init__(
        self,
        models: model_cache.ModelCache | None = None,
        max_pairs: int | None = None,
        encoder_for: EncoderFor | None = None,
    ):
        self.models = models or model_cache.ModelCache()
        self.max_pairs = max_pairs
        self.encoder_for = encoder_for or (
            lambda place, name, shown: encoder_from(place, lambda: self.models.get(name), shown)
        )
        self._prepared: OrderedDict[tuple, Preparation] = OrderedDict()  # built-in sets, other encoders
        self._uploads_prepared: OrderedDict[tuple, Preparation] = OrderedDict()  # visitors' uploads
        self._pinned: dict[str, Preparation] = {}  # built-in sets, pinned
        self._sessions: OrderedDict[str, SessionRun] = OrderedDict()
        self._lock = threading.Lock()
        self._encoding = threading.Lock()  # one encoding pass at a time: they share two cores

    # ---- data sets ----------------------------------------------------------------------------------------

    def source(self, session: str, choice: str) -> tuple[str, str]:
        """(the model name to load, how people call it) of a model choice; InputError for one not allowed."""
        name = model_cache.resolve_choice(session, choice, encoder_default=True)
        return name, model_cache.display_name(session, choice)

    def upload(
        self, session: str, path, scale: str, choice: str, address: str | None = None
    ) -> tuple[UploadedData, Preparation]:
        """Read the visitor's CSV of labelled pairs (:func:`~stsdemo.playground.uploaded.load_uploaded_pairs`: one
        InputError for a bad file, and then their earlier upload stays) as the data set ``upload`` names for them,
        and start embedding it for the encoder of ``choice``; ``address``: the client's, which its caps count
        (:meth:`make_room`). One upload of a visitor's is embedded at a time: the encoder's two cores are
        everyone's."""
        run = self.session(session)
        if run.embedding is not None and not run.embedding.done.is_set():
            raise InputError("upload_still_embedding", fraction=f"{run.embedding.fraction:.0%}")
        uploaded = load_uploaded_pairs(path, scale)
        with self._lock:
            run.uploaded, run.address, run.size = uploaded, address, Path(path).stat().st_size
            self.make_room(session)
        run.embedding = self.prepare(session, choice, UPLOADED)
        return run.uploaded, run.embedding

    def make_room(self, newest: str) -> None:
        """Drop the uploads of ``newest``'s address, least recently used first, while that address keeps more
        than ``playground_uploads`` uploads or bytes than ``playground_kept_bytes``; never ``newest``'s own,
        nor another address's (called under the lock)."""
        address = self._sessions[newest].address
        mine = [
            (key, run)
            for key, run in self._sessions.items()
            if run.uploaded is not None and run.address == address
        ]  # least recently used first
        count, size = len(mine), sum(run.size for _, run in mine)
        most = caps.value("playground_uploads")
        most_bytes = caps.value("playground_kept_bytes")
        for key, run in mine:
            if count <= most and size <= most_bytes:
                break
            if key != newest:
                del self._sessions[key]
                count, size = count - 1, size - run.size

    def prepare(self, session: str, choice: str, dataset: str) -> Preparation:
        """The preparation of ``dataset`` (``upload``: the visitor's uploaded pairs) for the encoder of ``choice``:
        the one under way or done, else a new one started in the background."""
        name, shown = self.source(session, choice)
        place, _ = resolve_model(name, model_cache.allowed_roots())
        if dataset in BUILT_IN_DATA and place == resolve_model(None)[0]:
            return self._pinned_preparation(dataset)
        if dataset == UPLOADED:
            uploaded = self.session(session).uploaded
            if uploaded is None:
                raise InputError("no_pairs_uploaded")
            data = uploaded.data
            key, what, load = (place, data.name, None), f"your {data.title}", lambda: data
            kept, most, folder = self._uploads_prepared, MAX_UPLOADS_PREPARED, cache_folder() / UPLOAD_CACHE
        else:
            key, what = (place, dataset, self.max_pairs), dataset
            load = functools.partial(load_playground_data, dataset, self.max_pairs)
            kept, most, folder = self._prepared, MAX_PREPARED, None
        with self._lock:
            found = kept.get(key)
            if found is not None and found.error is None:
                kept.move_to_end(key)
                return found
            preparation = kept[key] = Preparation(f"{what} with {shown}")
            while len(kept) > most:
                kept.popitem(last=False)
        threading.Thread(
            target=self._run,
            args=(preparation, name, place, shown, load, folder),
            daemon=True,
            name="stsdemo-playground-prepare",
        ).start()
        return preparation

    def _pinned_preparation(self, dataset: str) -> Preparation:
        """A built-in set with the default encoder, ready at once and never evicted: uploads cannot push it out."""
        with self._lock:
            if dataset not in self._pinned:
                preparation = Preparation(dataset)
                preparation.result, preparation.fraction = Prepared.pinned(dataset), 1.0
                preparation.done.set()
                self._pinned[dataset] = preparation
            return self._pinned[dataset]

    def _run(
        self,
        preparation: Preparation,
        name: str,
        place: str,
        shown: str,
        load: Callable[[], PlaygroundData],
        folder: Path | None,
    ) -> None:
        try:
            encoder = self.encoder_for(place, name, shown)
            data = load()
            with self._encoding:
                embeddings = embed_sentences(data.sentences, encoder, preparation.report, folder)
            preparation.result = Prepared.embedded(data, embeddings, shown)
        except Exception as error:  # noqa: BLE001 - handed to whoever waits for it
            preparation.error = error
        finally:
            preparation.done.set()

    def prepared(self, session: str, choice: str, dataset: str) -> Prepared:
        """The prepared data set, waiting for its preparation when needed (the page is told of that wait's
        progress first: the site answers 503 with it, :mod:`.site`)."""
        preparation = self.prepare(session, choice, dataset)
        preparation.done.wait()
        if preparation.error is not None:
            error = preparation.error
            raise (
                error
                if isinstance(error, InputError)
                else InputError(
                    "could_not_prepare",
                    what=preparation.what,
                    type=type(error).__name__,
                    error=str(error)[:200],
                )
            )
        return preparation.result

    # ---- visitors' uploads ---------------------------------------------------------------------------------

    def upload_of(self, session: str) -> SessionRun | None:
        """The visitor's page if it has uploaded (a look that makes none: any client may ask for any key)."""
        with self._lock:
            return self._sessions.get(session)

    def session(self, session: str) -> SessionRun:
        """The visitor's page (a new, empty one for a new visitor); the least recently used beyond
        :data:`MAX_SESSIONS` are dropped."""
        with self._lock:
            run = self._sessions.setdefault(session, SessionRun())
            self._sessions.move_to_end(session)
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
            return run
