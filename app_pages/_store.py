"""A small store of results shared by the server's sessions, for work that shows its progress on the page
(``_state.store`` makes the app's stores, under its one caching policy).

Not ``st.cache_resource`` on the working function itself: a function that updates a page element while it runs (a
progress bar) cannot be cached by Streamlit, whose cache would replay the element on every hit (or refuse it with a
``CacheReplayClosureError``). The work runs outside any cached function, and its result is kept here.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable


class LRUStore:
    """At most `size` results by key, the least recently used let go first; each kept at most `ttl` seconds.

    Thread-safe: the sessions of a Streamlit server run in threads of one process. The bound is what keeps memory in
    check, whatever the number of sessions; a result let go is simply computed again when asked for.

    Parameters
    ----------
    size : int
        The number of results kept.
    ttl : float, optional
        Seconds a result is kept after it was stored; None keeps it until the store is full.
    clock : callable
        Seconds, as ``time.monotonic`` (a test's own clock).
    """

    def __init__(self, size: int = 24, ttl: float | None = None, clock: Callable[[], float] = time.monotonic):
        self.size, self.ttl, self.clock = size, ttl, clock
        self.items: OrderedDict = OrderedDict()  # key -> (time stored, result)
        self.lock = threading.Lock()

    def get(self, key: Hashable):
        """The result stored under `key` (now the most recently used), or None."""
        with self.lock:
            if key not in self.items:
                return None
            stored, value = self.items[key]
            if self.ttl is not None and self.clock() - stored > self.ttl:
                del self.items[key]
                return None
            self.items.move_to_end(key)
            return value

    def put(self, key: Hashable, value) -> None:
        """Keep `value` under `key`, letting go of the least recently used results beyond the store's size."""
        with self.lock:
            self.items[key] = (self.clock(), value)
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)
