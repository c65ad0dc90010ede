"""The JSON-value check, and a JSON value's canonical text.

A JSON value is built from ``None``, ``bool``, ``str``, ``int``, finite ``float``,
``list`` and ``dict`` with ``str`` keys -- exact types (our own frozen
containers count), no tuples, no cycles, at most :data:`MAX_DEPTH` containers
deep; a value shared by two parents is fine. Numbers must survive a trip
through an IEEE double, as the TypeScript harness reads them.

The *canonical form* of a value is what a JavaScript engine holds after
parsing its JSON text: integral numbers up to 2**53 in magnitude are ``int``
and all other numbers ``float``; object keys that are array indices come
first in ascending order; well-formed surrogate pairs held as two code points
are one character. Its *canonical text* (:func:`encode`) is the UTF-8 of what
``JSON.stringify`` writes for it -- the bytes the TypeScript harness stores.

The log keeps every payload as its canonical text: bytes are immutable and
invisible to the cyclic garbage collector, and they are what a backend
writes. :func:`decode` gives a fresh plain copy back.

Nothing here recurses on the Python stack beyond a small fixed bound, so the
result never depends on how deep the caller's stack is: the common case takes
a bounded lean check and orjson (whose limits are its own, not the
interpreter's); everything else takes an iterative careful pass, which alone
decides errors and their messages.
"""

from __future__ import annotations

import json
import math
import re
import threading
from json.encoder import encode_basestring
from typing import Any, Final

import msgspec
import orjson

from dsh_session import _accel
from dsh_session._frozen import FrozenDict, FrozenList, frozen_dict, frozen_list
from dsh_session.errors import Code, DshSessionError

#: The deepest a JSON value may nest: containers on its deepest path
#: (``[]`` is 1, ``[[]]`` is 2, a scalar 0).
MAX_DEPTH = 200

_EXACT = 2**53
_INDEX_LIMIT = 2**32 - 1
_SURROGATE = re.compile("[\ud800-\udfff]")


class NotJsonError(DshSessionError, ValueError):
    """A value broke the JSON-value rule (``NON_JSON_DATA``); ``reason`` names the spot and the problem."""

    #: The registry code of this kind of failure.
    CODE = Code.NON_JSON_DATA

    def __init__(self, reason: str) -> None:
        super().__init__(self.CODE, reason)
        self.reason = reason


class TooDeepError(NotJsonError):
    """A value nests more than :data:`MAX_DEPTH` containers deep (``DATA_TOO_DEEP``)."""

    CODE = Code.DATA_TOO_DEEP


class Text(bytes):
    """Canonical JSON text that orjson alone cannot read back to the canonical value
    (it holds a lone surrogate, or a float that JavaScript spells as an integer)."""

    __slots__ = ()


#: How a logged event holds its payload's text (``LoggedEvent._form``): canonical; as a store
#: held the payload, read once already (JSON that parsed and nests at most :data:`MAX_DEPTH`
#: deep, not yet known to be canonical); or as the whole stored record (a JSONL line read by
#: orjson), whose ``data`` is the payload. A load keeps the text as it is and
#: :func:`canonical_stored` puts it in canonical form the first time it is needed (which cannot
#: fail: only a parsed value's spelling may change, as JavaScript reads it -- key order, ``2.0``
#: as ``2``, an integer beyond 2**53 as the double it rounds to). A flag on the event, not a
#: ``bytes`` subclass: instances of a Python class are tracked by the cyclic collector, plain
#: ``bytes`` are not.
CANONICAL: Final = 0
STORED: Final = 1
STORED_RECORD: Final = 2


def canonical_stored(stored: bytes, form: int) -> bytes:
    """The canonical text of the payload held as ``stored`` in ``form`` (:data:`STORED` or
    :data:`STORED_RECORD`)."""
    try:
        value = _loads(stored)
    except orjson.JSONDecodeError:  # what orjson cannot read (a lone-surrogate escape, ...)
        value = _on_fixed_stack(json.loads, stored)
    if form == STORED_RECORD:
        value = value["data"]
    text = lean_text(value)
    if text is not None:
        return text
    return _careful_text(value, js_numbers=True)


def is_json_value(value: object) -> bool:
    """True when ``value`` satisfies the JSON-value rule."""
    try:
        encode(value)
    except NotJsonError:
        return False
    return True


# -- canonical text ------------------------------------------------------------------

# msgspec writes the text (its bytes are sized exactly; orjson's over-allocated
# output makes a heap of kept payloads slow to grow); orjson reads it back (its
# depth limit is its own, not the interpreter's).
_dumps = msgspec.json.encode
_loads = orjson.loads
#: The C twin of :func:`lean_text` (``None``: not built, or turned off; see ``_accel``).
_plain = _accel.plain_text


def encode(value: object) -> bytes:
    """The canonical JSON text of ``value``; :class:`NotJsonError` if it is not a JSON value.

    The result is ``bytes`` when orjson reads it back to the canonical value
    (the common case), else a :class:`Text`; :func:`decode` reads either.
    """
    text = lean_text(value)
    return _careful_text(value) if text is None else text  # None: a lone surrogate, a float, ...


def lean_text(value: object) -> bytes | None:
    """The canonical text of ``value`` when the lean pass takes it, else ``None``
    (then :func:`encode` decides)."""
    if _plain is not None:
        return _plain(value)
    return _lean_text(value)


def _lean_text(value: object) -> bytes | None:
    """:func:`lean_text` in Python: the twin of the C ``plain_text``."""
    try:
        _lean(value)
        return _dumps(value)
    except (_Unusual, UnicodeEncodeError, RecursionError):
        return None


def decode(text: bytes) -> Any:
    """A fresh, plain copy of the value whose canonical text is ``text``."""
    if text.__class__ is bytes:
        return _loads(text)
    return _parse_js(text)


class _Unusual(Exception):
    """The lean pass met something it leaves to the careful one."""


#: Keys seen to be plain (ASCII, not array-index-like): a memo for the lean pass,
#: bounded in count and key length.
_PLAIN_KEYS: set[str] = set()
_PLAIN_KEYS_LIMIT = 4096


def _lean(
    value: Any,
    depth: int = 1,
    type: Any = type,
    str: Any = str,
    int: Any = int,
    bool: Any = bool,
    low: int = -_EXACT,
    high: int = _EXACT,
    plain_keys: set[str] = _PLAIN_KEYS,
) -> None:
    """Pass when the encoder writes ``value``'s canonical text as it is, else raise ``_Unusual``.

    Exact JSON types, keys that keep their order in JavaScript, safe integers,
    no float; strings are left to the encoder, which refuses lone surrogates
    (and so sends them to the careful pass). A value too deep for the caller's
    stack raises ``RecursionError``, which sends it to the careful pass too.
    ``depth`` is ``value``'s own if it is a container: past :data:`MAX_DEPTH` the
    careful pass decides (and refuses it). (Names are bound as defaults: local
    lookups, on the path every append takes.)
    """
    kind = type(value)
    if (kind is dict or kind is list) and depth > MAX_DEPTH:
        raise _Unusual
    if kind is dict:
        for key in value:
            if type(key) is not str or key not in plain_keys:
                _plain_key(key)
        items = value.values()
    elif kind is list:
        items = value
    elif not (kind is str or kind is bool or value is None or (kind is int and low <= value <= high)):
        raise _Unusual
    else:
        return
    for item in items:
        kind = type(item)
        if kind is str:
            continue
        if kind is int:
            if low <= item <= high:
                continue
            raise _Unusual
        if kind is dict or kind is list:
            _lean(item, depth + 1)
        elif not (item is None or kind is bool):
            raise _Unusual


def _plain_key(key: object) -> None:
    if not isinstance(key, str) or key.__class__ is not str or not key.isascii() or key[:1].isdigit():
        raise _Unusual  # not a string, or JavaScript key order needed
    if len(key) <= 64 and len(_PLAIN_KEYS) < _PLAIN_KEYS_LIMIT:
        _PLAIN_KEYS.add(key)


def _careful_text(value: object, js_numbers: bool = False) -> bytes:
    """The canonical text by way of the careful pass (numbers and lone surrogates spelled
    as JavaScript spells them, keys in JavaScript's order). With ``js_numbers`` an
    integer no double holds is read as JavaScript reads it (the double nearest it)
    instead of refused: for values parsed from stored text."""
    special = _Special()
    canonical = _careful(value, special.leaf, special.object, list, js_numbers)
    text = _on_fixed_stack(_dumps, canonical)
    return Text(text) if special.seen else text


class _Special:
    """Leaf and object builders for the careful text: the encoder writes the containers,
    raw fragments carry what only JavaScript's spelling gets right."""

    __slots__ = ("seen",)

    def __init__(self) -> None:
        #: True once the text holds something orjson cannot read back as it was.
        self.seen = False

    def leaf(self, value: Any) -> Any:
        kind = type(value)
        if kind is float:
            spelled = js_number(value)
            if "." not in spelled and "e" not in spelled:
                self.seen = True  # an integral float: orjson would read it back as an int
            return msgspec.Raw(spelled.encode())
        if kind is str and not _plain_str(value):
            self.seen = True
            return msgspec.Raw(js_string(value).encode())
        return value

    def object(self, pairs: list[tuple[str, Any]]) -> Any:
        if all(_plain_str(key) for key, _ in pairs):
            return dict(pairs)
        self.seen = True  # no encoder takes a lone surrogate in a key: write the object here
        body = b",".join(js_string(key).encode() + b":" + _on_fixed_stack(_dumps, v) for key, v in pairs)
        return msgspec.Raw(b"{" + body + b"}")


# -- the careful pass ----------------------------------------------------------------


def freeze(value: object) -> Any:
    """The canonical, immutable copy of a JSON value; :class:`NotJsonError` if it is not one.

    The copy is built of :class:`~dsh_session._frozen.FrozenDict` and
    :class:`~dsh_session._frozen.FrozenList`.
    """
    kind = type(value)
    if kind is FrozenDict or kind is FrozenList:
        return value
    return _careful(value, _keep, _frozen_from_pairs, _frozen_from_items)


def canonical(value: object) -> Any:
    """The canonical form of a JSON value as a fresh, plain copy; :class:`NotJsonError` if not."""
    return _careful(value, _keep, dict, list)


def _keep(value: Any) -> Any:
    return value


def _frozen_from_pairs(pairs: list[tuple[str, Any]]) -> FrozenDict:
    return frozen_dict(pairs, _all_plain(key for key, _ in pairs) and _all_plain(v for _, v in pairs))


def _frozen_from_items(items: list[Any]) -> FrozenList:
    return frozen_list(items, _all_plain(items))


def _all_plain(values: Any) -> bool:
    for value in values:
        kind = type(value)
        if kind is float or (kind is str and not _plain_str(value)):
            return False
        if (kind is FrozenDict or kind is FrozenList) and not value.plain:
            return False
    return True


def _plain_str(text: str) -> bool:
    return text.isascii() or _SURROGATE.search(text) is None


_DICTS = (dict, FrozenDict)
_LISTS = (list, FrozenList)


class _Frame:
    """One open container of the careful pass."""

    __slots__ = ("is_dict", "items", "key", "marker", "out", "path")

    def __init__(self, value: Any, path: str) -> None:
        self.is_dict = type(value) in _DICTS
        self.items = iter(dict.items(value) if self.is_dict else enumerate(value))
        self.out: list[Any] = []
        self.path = path
        self.marker = id(value)
        self.key = ""

    def add(self, item: Any) -> None:
        self.out.append((self.key, item) if self.is_dict else item)


def _careful(value: object, leaf: Any, make_dict: Any, make_list: Any, js_numbers: bool = False) -> Any:
    """Check ``value`` and build its canonical copy, without recursion.

    ``leaf`` maps each canonical scalar; ``make_dict`` (from key/value pairs in
    JavaScript's order) and ``make_list`` build the containers. The value is
    walked depth first, items in order, and the first problem met is raised:
    a key that is not a string, a value that is not JSON, a container that
    contains itself, a container deeper than :data:`MAX_DEPTH`.
    """
    top = _scalar(value, "data", leaf, js_numbers)
    if top is not _CONTAINER:
        return top
    stack = [_Frame(value, "data")]
    active = {id(value)}
    while True:
        frame = stack[-1]
        step = next(frame.items, None)
        if step is None:
            stack.pop()
            active.discard(frame.marker)
            built = make_dict(_js_order(frame.out)) if frame.is_dict else make_list(frame.out)
            if not stack:
                return built
            stack[-1].add(built)
            continue
        if frame.is_dict:
            key, item = step
            if type(key) is not str:
                raise NotJsonError(f"{frame.path}: key {key!r} is not a string")
            where = f"{frame.path}.{key}"
            frame.key = canonical_string(key)[0]
        else:
            index, item = step
            where = f"{frame.path}[{index}]"
        scalar = _scalar(item, where, leaf, js_numbers)
        if scalar is not _CONTAINER:
            frame.add(scalar)
            continue
        if id(item) in active:
            raise NotJsonError(f"{where}: the value contains itself")
        if len(stack) >= MAX_DEPTH:
            raise TooDeepError(f"{where}: nests deeper than {MAX_DEPTH} containers")
        stack.append(_Frame(item, where))
        active.add(id(item))


_CONTAINER: Any = object()


def _scalar(value: Any, path: str, leaf: Any, js_numbers: bool = False) -> Any:
    """The canonical scalar (through ``leaf``), or ``_CONTAINER`` for a list or dict to walk."""
    kind = type(value)
    if js_numbers and kind is int and not -_EXACT <= value <= _EXACT:
        value, kind = _js_double(value), float
    if kind is str:
        return leaf(canonical_string(value)[0])
    if value is None or kind is bool:
        return value
    if kind is int or kind is float:
        try:
            return leaf(canonical_number(value))
        except NotJsonError as error:
            raise NotJsonError(f"{path}: {error.reason}") from None
    if kind in _DICTS or kind in _LISTS:
        return _CONTAINER  # our own frozen containers are walked too: their depth counts
    raise NotJsonError(f"{path}: {kind.__name__} is not a JSON type")


def _js_order(pairs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    if not any(key[:1].isdigit() and is_array_index(key) for key, _ in pairs):
        return pairs
    indices = sorted((pair for pair in pairs if is_array_index(pair[0])), key=lambda pair: int(pair[0]))
    return indices + [pair for pair in pairs if not is_array_index(pair[0])]


def _js_double(value: int) -> float:
    """The double JavaScript reads an integer's digits as (``Infinity`` is not JSON: refused)."""
    try:
        return float(value)
    except OverflowError:
        raise NotJsonError(f"integer {value} is too large for a double") from None


def canonical_number(value: int | float) -> int | float:
    """The canonical spelling of a number; :class:`NotJsonError` if it has none."""
    if type(value) is int:
        if -_EXACT <= value <= _EXACT:
            return value
        try:
            as_double = float(value)
        except OverflowError:
            raise NotJsonError(f"integer {value} is too large for a double") from None
        if int(as_double) != value:
            raise NotJsonError(f"integer {value} is not exactly representable as a double")
        return as_double
    assert isinstance(value, float)
    if value != value or value in (math.inf, -math.inf):
        raise NotJsonError(f"number {value!r} is not finite")
    if -_EXACT <= value <= _EXACT and value.is_integer():
        return int(value)
    return value


def canonical_string(text: str) -> tuple[str, bool]:
    """The string with surrogate pairs joined, and whether it is free of lone surrogates."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text, True
    joined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return joined, _SURROGATE.search(joined) is None


def is_array_index(key: str) -> bool:
    """True when JavaScript would order ``key`` as an array index."""
    if not key.isascii() or not key.isdigit() or (key[0] == "0" and len(key) > 1):
        return False
    return int(key) < _INDEX_LIMIT


# -- JavaScript spellings --------------------------------------------------------------

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def js_number(value: int | float) -> str:
    """A number as ECMAScript ``Number::toString`` spells it."""
    if type(value) is int and -_EXACT <= value <= _EXACT:
        return str(value)
    number = float(value)
    if number == 0:
        return "0"
    text = repr(number)
    sign = ""
    if text[0] == "-":
        sign, text = "-", text[1:]
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    count = len(digits)
    if count <= point <= 21:
        return sign + digits + "0" * (point - count)
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * -point + digits
    power = point - 1
    exp = f"e{'+' if power >= 0 else '-'}{abs(power)}"
    if count == 1:
        return sign + digits + exp
    return sign + digits[0] + "." + digits[1:] + exp


def js_string(text: str) -> str:
    """A string as ``JSON.stringify`` writes it (a surrogate pair held as two code points
    is the character it encodes, as in JavaScript; a lone surrogate is escaped)."""
    quoted: str = encode_basestring(text)
    if text.isascii() or _LONE_SURROGATE.search(quoted) is None:
        return quoted
    quoted = encode_basestring(canonical_string(text)[0])
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


# -- reading canonical text that orjson cannot ------------------------------------------


def _parse_js(text: bytes) -> Any:
    """Read canonical text as JavaScript does (numbers are doubles, lone surrogates kept)."""
    return _on_fixed_stack(_json_loads, text)


def _json_loads(text: bytes) -> Any:
    return json.loads(text, parse_int=_js_int)


def _on_fixed_stack(work: Any, argument: Any) -> Any:
    """``work(argument)``, redone on a fresh thread if the caller's stack is too deep for it.

    The standard library's parser and msgspec's encoder recurse on the
    interpreter's stack; a value within :data:`MAX_DEPTH` always fits a fresh
    thread's, so the result never depends on how deep the caller is.
    """
    try:
        return work(argument)
    except RecursionError:
        pass
    box: list[Any] = []
    worker = threading.Thread(target=lambda: box.append(work(argument)), name="dsh-session-json")
    worker.start()
    worker.join()
    return box[0]


def _js_int(token: str) -> int | float:
    number = int(token)
    return number if -_EXACT <= number <= _EXACT else float(token)
