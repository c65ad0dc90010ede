"""The surface as a doubly linked list over the log, folded incrementally.

Nodes are keyed by seq. Each node also has a *rank* that increases from head
to tail: an append ranks above the tail, and a replacement node takes the rank
of the first node it shadows, which is exactly its position. Comparing ranks
orders two nodes in O(1), so a replace costs O(k) in the k nodes it shadows,
whatever the surface length. The manager folds the part of the log it has not
seen yet (the *delta*) on every access; ``invalidate`` drops everything and
refolds from the start on the next access.

Each node caches the message its event projects to, so a replace re-projects
nothing that it did not touch (the session's derived history reads it).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from dsh_session.event import APPEND, SURFACE_TYPES, Event, Replace, SurfaceNode

#: Marks a node whose message has not been projected yet.
UNPROJECTED: Any = object()


class _Node:
    __slots__ = ("message", "next", "prev", "rank", "seq")

    def __init__(self, seq: int, rank: int, prev: _Node | None) -> None:
        self.seq = seq
        self.rank = rank
        self.prev = prev
        self.next: _Node | None = None
        self.message: Any = UNPROJECTED


class SurfaceManager:
    """The surface of one session's log.

    ``nodes`` is a snapshot tuple of :class:`SurfaceNode` (head to tail);
    ``replace_generation`` rises by one for every replace folded and for every
    ``invalidate`` -- so if it is unchanged between two reads, every node seen
    for the first time was appended at the tail.
    """

    __slots__ = ("_by_seq", "_folded", "_generation", "_head", "_log", "_snapshot", "_tail")

    def __init__(self, log: Sequence[Event]) -> None:
        self._log = log
        self._generation = 0
        self._reset()

    def _reset(self) -> None:
        self._by_seq: dict[int, _Node] = {}
        self._head: _Node | None = None
        self._tail: _Node | None = None
        self._folded = 0
        self._snapshot: tuple[SurfaceNode, ...] | None = ()

    # -- public reads -------------------------------------------------------

    @property
    def nodes(self) -> tuple[SurfaceNode, ...]:
        """The surface head to tail, as an immutable snapshot."""
        self.sync()
        if self._snapshot is None:
            self._snapshot = tuple(self._iter_nodes())
        return self._snapshot

    @property
    def replace_generation(self) -> int:
        """Replaces folded plus invalidations so far; strictly increasing, never reset."""
        self.sync()
        return self._generation

    def invalidate(self) -> None:
        """Forget the folded surface; the next access refolds the whole log."""
        self._reset()
        self._generation += 1
        self._snapshot = None

    def node(self, seq: int) -> SurfaceNode | None:
        """The node for ``seq`` if it is on the surface."""
        self.sync()
        found = self._by_seq.get(seq) if type(seq) is int else None
        return None if found is None else _public(found)

    def shadowed(self, start: int, end: int) -> tuple[int, ...] | None:
        """The seqs a replace of ``start``..``end`` would take off the surface now,
        head to tail; ``None`` when it could not (an endpoint off the surface, or
        ``start`` after ``end``)."""
        self.sync()
        span = self._span(start, end) if type(start) is int and type(end) is int else None
        return tuple(node.seq for node in span) if isinstance(span, list) else None

    def seqs(self) -> list[int]:
        """The seqs on the surface, head to tail."""
        self.sync()
        out = []
        node = self._head
        while node is not None:
            out.append(node.seq)
            node = node.next
        return out

    def __contains__(self, seq: object) -> bool:
        self.sync()
        return type(seq) is int and seq in self._by_seq

    def __len__(self) -> int:
        self.sync()
        return len(self._by_seq)

    def __iter__(self) -> Iterator[SurfaceNode]:
        return iter(self.nodes)

    def __repr__(self) -> str:
        return f"<SurfaceManager nodes={self.seqs()} generation={self._generation}>"

    # -- folding --------------------------------------------------------------

    def sync(self) -> None:
        """Fold every log event not folded yet. The log holds only admitted
        events, so folding cannot fail."""
        log = self._log
        while self._folded < len(log):
            self._fold(log[self._folded])

    def _fold(self, event: Event) -> None:
        """Fold the next event of the log (which has passed admission)."""
        self._folded += 1
        op = event.surface_op
        if op is None or event.type not in SURFACE_TYPES:
            return
        self._snapshot = None
        if op == APPEND:
            self._append(event.seq)
        else:
            assert isinstance(op, Replace)
            span = self._span(op.start, op.end)
            assert isinstance(span, list)
            self._replace(event.seq, span)

    def _span(self, start: int, end: int) -> list[_Node] | str:
        """The nodes a replace of ``start``..``end`` shadows, head to tail, or which
        check failed: ``"start"``, ``"end"`` or ``"order"``."""
        first = self._by_seq.get(start)
        if first is None:
            return "start"
        last = self._by_seq.get(end)
        if last is None:
            return "end"
        if first.rank > last.rank:
            return "order"
        out = [first]
        node = first
        while node is not last:
            node = node.next  # type: ignore[assignment]
            out.append(node)
        return out

    def position(self, seq: int) -> int:
        """The 0-based position of an on-surface seq (O(position); for messages)."""
        index = 0
        node = self._head
        while node is not None and node.seq != seq:
            node = node.next
            index += 1
        return index

    def _append(self, seq: int) -> None:
        tail = self._tail
        node = _Node(seq, tail.rank + 1 if tail is not None else 0, tail)
        if tail is None:
            self._head = node
        else:
            tail.next = node
        self._tail = node
        self._by_seq[seq] = node

    def _replace(self, seq: int, span: list[_Node]) -> None:
        first, last = span[0], span[-1]
        node = _Node(seq, first.rank, first.prev)
        node.next = last.next
        if first.prev is None:
            self._head = node
        else:
            first.prev.next = node
        if last.next is None:
            self._tail = node
        else:
            last.next.prev = node
        by_seq = self._by_seq
        for gone in span:
            del by_seq[gone.seq]
        by_seq[seq] = node
        self._generation += 1

    # -- for the session's derived history -------------------------------------

    @property
    def generation_now(self) -> int:
        """The generation without syncing (the caller has synced)."""
        return self._generation

    def _iter_nodes(self) -> Iterator[SurfaceNode]:
        node = self._head
        while node is not None:
            yield _public(node)
            node = node.next


def _public(node: _Node) -> SurfaceNode:
    return SurfaceNode(
        node.seq,
        node.prev.seq if node.prev is not None else None,
        node.next.seq if node.next is not None else None,
    )
