"""The surface as a doubly linked list over the log, folded incrementally.

Nodes are keyed by seq. Each node also has a *rank* that increases from head
to tail: an append ranks above the tail, and a replacement node takes the rank
of the first node it shadows, which is exactly its position. Comparing ranks
orders two nodes in O(1), so a replace costs O(k) in the k nodes it shadows,
whatever the surface length. The manager folds the part of the log it has not
seen yet (the *delta*) on every access; ``invalidate`` drops everything and
refolds from the start on the next access.

A node is not an object: its rank and its neighbours' seqs live in three
dicts keyed by seq (``None`` for no neighbour). Dicts that hold only ints and
``None`` are not tracked by CPython's cyclic garbage collector, so a surface of
any length adds nothing for the collector to walk; node objects, one per
message, were about a twentieth of everything it walked in a long session.

The manager also keeps each node's projected message (``_messages``, filled by
the session's derived history), so a replace re-projects nothing that it did
not touch; a shadowed node's message is dropped with it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from dsh_session import _accel
from dsh_session.event import APPEND, SURFACE_TYPES, Event, Replace, SurfaceNode


class SurfaceManager(_accel.SurfaceCore):
    """The surface of one session's log.

    ``nodes`` is a snapshot tuple of :class:`SurfaceNode` (head to tail);
    ``replace_generation`` rises by one for every replace folded and for every
    ``invalidate`` -- so if it is unchanged between two reads, every node seen
    for the first time was appended at the tail.
    """

    # The state lives in the base's slots (C fields where dsh_session._speedups is built).
    __slots__ = ()

    def __init__(self, log: Sequence[Event], *, owned: bool = False) -> None:
        self._log = log
        self._generation = 0
        #: True when an owner (the session) folds every event it appends as it appends
        #: it; then ``_folded`` is ``None`` while the surface is in step with the log.
        self._owned = owned
        self._reset()

    def _reset(self) -> None:
        self._rank: dict[int, int] = {}
        self._prev: dict[int, int | None] = {}
        self._next: dict[int, int | None] = {}
        #: seq -> the message its event projects to (``None``: none); written by the session.
        self._messages: dict[int, Any] = {}
        self._head: int | None = None
        self._tail: int | None = None
        #: How many log events are folded; ``None``: all of them (an owned surface in step).
        self._folded: int | None = 0
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
        if type(seq) is not int or seq not in self._rank:
            return None
        return SurfaceNode(seq, self._prev[seq], self._next[seq])

    def shadowed(self, start: int, end: int) -> tuple[int, ...] | None:
        """The seqs a replace of ``start``..``end`` would take off the surface now,
        head to tail; ``None`` when it could not (an endpoint off the surface, or
        ``start`` after ``end``)."""
        self.sync()
        span = self._span(start, end) if type(start) is int and type(end) is int else None
        return tuple(span) if isinstance(span, list) else None

    def seqs(self) -> list[int]:
        """The seqs on the surface, head to tail."""
        self.sync()
        out: list[int] = []
        keep = out.append
        after = self._next
        seq = self._head
        while seq is not None:
            keep(seq)
            seq = after[seq]
        return out

    def __contains__(self, seq: object) -> bool:
        self.sync()
        return type(seq) is int and seq in self._rank

    def __len__(self) -> int:
        self.sync()
        return len(self._rank)

    def __iter__(self) -> Iterator[SurfaceNode]:
        return iter(self.nodes)

    def __repr__(self) -> str:
        return f"<SurfaceManager nodes={self.seqs()} generation={self._generation}>"

    # -- folding --------------------------------------------------------------

    def sync(self) -> None:
        """Fold every log event not folded yet. The log holds only admitted
        events, so folding cannot fail."""
        folded = self._folded
        if folded is None:
            return
        log = self._log
        while folded < len(log):
            self._fold_event(log[folded])
            folded += 1
        self._folded = None if self._owned else folded

    def _fold(self, event: Event, span: list[int] | None = None) -> None:
        """Fold the next event of the log (which has passed admission); ``span``,
        when given, is what admission found a replace shadows."""
        assert self._folded is not None
        self._folded += 1
        self._fold_event(event, span)

    def _fold_event(self, event: Event, span: list[int] | None = None) -> None:
        op = event.surface_op
        if op is None or event.type not in SURFACE_TYPES:
            return
        self._snapshot = None
        if op == APPEND:
            self._append(event.seq)
        else:
            assert isinstance(op, Replace)
            if span is None:
                found = self._span(op.start, op.end)
                assert isinstance(found, list)
                span = found
            self._replace(event.seq, span)

    def _span(self, start: int, end: int) -> list[int] | str:
        """The seqs a replace of ``start``..``end`` shadows, head to tail, or which
        check failed: ``"start"``, ``"end"`` or ``"order"``."""
        rank = self._rank
        first = rank.get(start)
        if first is None:
            return "start"
        last = rank.get(end)
        if last is None:
            return "end"
        if first > last:
            return "order"
        out = [start]
        after = self._next
        seq: int | None = start
        while seq != end:
            seq = after[seq]  # type: ignore[index]  # the links from start reach end
            out.append(seq)  # type: ignore[arg-type]
        return out

    def position(self, seq: int) -> int:
        """The 0-based position of an on-surface seq (O(position); for messages)."""
        index = 0
        after = self._next
        node = self._head
        while node is not None and node != seq:
            node = after[node]
            index += 1
        return index

    def _append(self, seq: int) -> None:
        tail = self._tail
        if tail is None:
            self._rank[seq] = 0
            self._head = seq
        else:
            self._rank[seq] = self._rank[tail] + 1
            self._next[tail] = seq
        self._prev[seq] = tail
        self._next[seq] = None
        self._tail = seq

    def _append_run(self, seqs: list[int]) -> None:
        """:meth:`_append` of each of ``seqs`` in turn (ascending), done at once (a load's bulk path)."""
        if not seqs:
            return
        self._snapshot = None
        tail = self._tail
        first = 0 if tail is None else self._rank[tail] + 1
        if tail is None:
            self._head = seqs[0]
        else:
            self._next[tail] = seqs[0]
        self._rank.update(zip(seqs, range(first, first + len(seqs)), strict=True))
        self._prev.update(zip(seqs, [tail, *seqs[:-1]], strict=True))
        self._next.update(zip(seqs, [*seqs[1:], None], strict=True))
        self._tail = seqs[-1]

    def _replace(self, seq: int, span: list[int]) -> None:
        first, last = span[0], span[-1]
        rank, before, after, messages = self._rank, self._prev, self._next, self._messages
        prev, next_ = before[first], after[last]
        new_rank = rank[first]
        for gone in span:
            del rank[gone], before[gone], after[gone]
            messages.pop(gone, None)
        rank[seq] = new_rank
        before[seq] = prev
        after[seq] = next_
        if prev is None:
            self._head = seq
        else:
            after[prev] = seq
        if next_ is None:
            self._tail = seq
        else:
            before[next_] = seq
        self._generation += 1

    def _iter_nodes(self) -> Iterator[SurfaceNode]:
        before, after = self._prev, self._next
        seq = self._head
        while seq is not None:
            next_ = after[seq]
            yield SurfaceNode(seq, before[seq], next_)
            seq = next_
