"""JSON text as some other writer might spell it: the same value to ``JSON.parse``, other bytes.

A store may hold records that neither we nor the TypeScript original wrote
(a hand edit, another port, a tool): whitespace between tokens, escapes where
none are needed, ``2.0`` or ``2e0`` for ``2``, ``-0``, an integer token beyond
2**53 that rounds to the double it stands for, array-index keys out of
JavaScript's order, a key given twice. :func:`respell` writes such text for a
value parsed from canonical text, choosing at random; what JavaScript reads
back is the value it was given, so a load must come out the same whatever the
spelling -- and its canonical text must be ``JSON.stringify``'s again.

Only the standard library is used: this is the machines' own writer, not ours.
"""

from __future__ import annotations

import json
import random
from typing import Any

_EXACT = 2**53

#: Whitespace JSON allows between tokens (a JSONL line holds no newline).
_SPACE = (" ", "\t", "\n", "\r", "  ")
_SPACE_IN_LINE = (" ", "\t", "\r", "  ")

#: Short escapes JSON allows, and their characters.
_SHORT = {
    '"': '\\"',
    "\\": "\\\\",
    "/": "\\/",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def _gap(rng: random.Random, space: tuple[str, ...]) -> str:
    return rng.choice(space) if rng.random() < 0.3 else ""


def _unit(code: int, rng: random.Random) -> str:
    digits = f"{code:04x}"
    return "\\u" + (digits.upper() if rng.random() < 0.5 else digits)


def spell_string(text: str, rng: random.Random) -> str:
    """``text`` as a JSON string, some characters escaped that need not be."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in _SHORT and (char != "/" or rng.random() < 0.5):
            out.append(_SHORT[char] if rng.random() < 0.6 else _unit(code, rng))
        elif code < 0x20 or 0xD800 <= code <= 0xDFFF:
            out.append(_unit(code, rng))  # must be escaped (a lone surrogate cannot be UTF-8)
        elif code > 0xFFFF and rng.random() < 0.5:
            high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
            out.append(_unit(high, rng) + _unit(low, rng))  # a pair of escapes
        elif code <= 0xFFFF and rng.random() < 0.15:
            out.append(_unit(code, rng))
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def spell_number(value: int | float, rng: random.Random) -> str:
    """A spelling of ``value`` that JavaScript reads as the same double."""
    choices: list[str] = []
    if type(value) is int:
        choices += [str(value), f"{value}.0", f"{value}e0", f"{value}E+0", f"{value}.000e00"]
        if value == 0:
            choices += ["-0", "-0.0", "0e5", "-0E-3"]
        else:
            choices += [f"{value}0e-1"]
        big = value + 1 if value > 0 else value - 1
        if abs(value) >= _EXACT and float(big) == float(value):
            choices += [str(big)]  # an integer no double holds, read as the one that is
    else:
        assert isinstance(value, float)
        spelled = repr(value)  # Python's shortest round trip: ``1e-07``, ``1e+16``
        choices += [spelled, spelled.upper(), f"{value:.17g}", f"{value:.17e}"]
        if value.is_integer():
            choices += [str(int(value))]  # beyond 2**53: an integer token for the double
    return rng.choice(choices)


def respell(value: Any, rng: random.Random, index_keys_last: bool = True, line: bool = False) -> str:
    """A JSON text that ``JSON.parse`` reads as ``value`` (a value parsed from canonical text);
    with ``line``, one without a newline (a JSONL line)."""
    return _respell(value, rng, index_keys_last, _SPACE_IN_LINE if line else _SPACE)


def _respell(value: Any, rng: random.Random, index_keys_last: bool, space: tuple[str, ...]) -> str:
    if value is None or value is True or value is False:
        return json.dumps(value)
    if isinstance(value, str):
        return spell_string(value, rng)
    if isinstance(value, int | float):
        return spell_number(value, rng)
    if isinstance(value, list):
        items = [_gap(rng, space) + _respell(item, rng, True, space) + _gap(rng, space) for item in value]
        return "[" + ",".join(items) + (_gap(rng, space) if not items else "") + "]"
    assert isinstance(value, dict)
    pairs = list(value.items())
    # JavaScript puts array-index keys first in ascending order whatever the text's order:
    # moving them elsewhere (and shuffling them) spells the same object.
    indices = [pair for pair in pairs if _is_index(pair[0])]
    others = [pair for pair in pairs if not _is_index(pair[0])]
    if indices and index_keys_last and rng.random() < 0.7:
        rng.shuffle(indices)
        pairs = others + indices
    members = [_member(key, item, rng, space) for key, item in pairs]
    if others and rng.random() < 0.2:
        # A key given twice: the first sets its place, the last its value.
        # (The value is spelled once: a deep value must not be spelled twice at every level.)
        place = rng.choice([index for index, (key, _) in enumerate(pairs) if not _is_index(key)])
        key, item = pairs[place]
        members.append(members[place])
        members[place] = _member(key, "overwritten" if item != "overwritten" else 0, rng, space)
    return "{" + ",".join(members) + (_gap(rng, space) if not members else "") + "}"


def _member(key: str, item: Any, rng: random.Random, space: tuple[str, ...]) -> str:
    gaps = [_gap(rng, space) for _ in range(4)]
    return (
        gaps[0]
        + spell_string(key, rng)
        + gaps[1]
        + ":"
        + gaps[2]
        + _respell(item, rng, True, space)
        + gaps[3]
    )


def _is_index(key: str) -> bool:
    return key.isascii() and key.isdigit() and (key == "0" or key[0] != "0") and int(key) < 2**32 - 1


#: Payloads only another writer spells so, each as text (what ``JSON.parse`` reads from it is the
#: payload): numbers past what a double holds exactly, index keys out of order, escapes.
FOREIGN_PAYLOADS: tuple[str, ...] = (
    '{"b":1,"10":2,"2":3,"a":[1.0,-0,1E2,2.50,1e-7,0.000001,1e21,1E+21,123e-20]}',
    '{"big":[9007199254740993,-9007199254740993,18446744073709551615,18446744073709551616]}',
    '{"huge":[123456789012345678901234567890,-1e308,1.7976931348623157e308,5e-324,4.9e-324]}',
    '{"s":"\\ud83d\\ude00 \\u00e9\\u00E9 \\/ \\b\\f\\n\\r\\t \\u0000","\\u0061":"\\uD83D\\uDE00"}',
    '{"lone":["\\ud800","\\udc00x","\\ud83d","a\\udfff"],"\\ud800":1}',
    '[ 1 , 2.0 , { "4294967294" : 0 , "4294967295" : 1 , "01" : 2 , "1" : 3 , "-1" : 4 } ]',
    '{"a":1,"b":2,"a":3,"c":{"x":1,"x":{"y":[1,2]}}}',
    "9007199254740993",
    "-0.0",
    '"\\u2028\\u2029"',
)
