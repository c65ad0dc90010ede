"""JSON text as ECMAScript writes it, worked out from the standard's own algorithms.

This is the byte oracle of the tests: the reference stores every record with
``JSON.stringify``, so a line or a column we write must be, byte for byte, what
these functions give for the same value. It is a second writer on purpose,
sharing nothing with :func:`dsh_spec.js_stringify` (which takes its digits from
``repr``) or with the implementation's writer; two writers that agree are
evidence, one writer checked against itself is not.

- :func:`number_to_string` is ECMA-262 ``Number::toString(x, 10)``: find the
  fewest digits ``s`` (``k`` of them) and the exponent ``n`` with
  ``s * 10**(n - k)`` reading back as ``x`` -- found here by exact rational
  arithmetic, trying ``k = 1, 2, ...``; of two such ``s``, the closer to ``x``
  (then the even one), as the standard's note recommends and engines do --
  then lay them out: plain digits while ``n <= 21``, ``0.`` and zeros while
  ``n > -6``, exponent form (``1e+21``, ``1.5e-7``) otherwise.
- :func:`quote` is ``QuoteJSONString`` over the string's UTF-16 code units:
  the seven short escapes, ``\\u00xx`` for other controls, ``\\udxxx`` for a
  lone surrogate, every other code point as itself.
- :func:`property_order` is ``OrdinaryOwnPropertyKeys``: the keys that are
  array indices (canonical decimal integers up to ``2**32 - 2``) in ascending
  numeric order, then the others in the order they were created.
- :func:`stringify` is ``JSON.stringify(value)`` for a JSON value, without
  spaces; an ``int`` is the double it stands for (``2**60`` is written
  ``1152921504606847000``).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

from dsh_spec.json_value import Json

_SHORT = {0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r", 0x22: '\\"', 0x5C: "\\\\"}
_INDEX = re.compile(r"0|[1-9][0-9]*")
_LAST_INDEX = 2**32 - 2


def _double(value: Fraction) -> float:
    """The double nearest ``value`` (ties to even): ECMAScript's 𝔽."""
    try:
        return value.numerator / value.denominator  # int / int is correctly rounded
    except OverflowError:  # past the largest double: rounds to infinity
        return math.inf


def _decade(value: Fraction) -> int:
    """The ``d`` with ``10**d <= value < 10**(d + 1)`` (``value`` positive)."""
    d = math.floor(math.log10(value.numerator) - math.log10(value.denominator))
    while Fraction(10) ** d > value:
        d -= 1
    while Fraction(10) ** (d + 1) <= value:
        d += 1
    return d


def _candidates(x: float, exact: Fraction, decade: int, k: int) -> list[tuple[Fraction, int, int, int]]:
    """Every ``k``-digit ``s`` (with its ``n``) whose ``s * 10**(n - k)`` reads back as ``x``,
    as ``(distance from x, parity, s, n)``."""
    found: list[tuple[Fraction, int, int, int]] = []
    for n in (decade + 1, decade + 2):  # rounding up may carry into the next decade
        scale = Fraction(10) ** (n - k)
        low = math.floor(exact / scale)
        for s in (low, low + 1):
            if 10 ** (k - 1) <= s < 10**k and _double(s * scale) == x:
                found.append((abs(s * scale - exact), s % 2, s, n))
    return found


def shortest_digits(x: float) -> tuple[str, int]:
    """``(s, n)`` of ``Number::toString`` step 5 for a finite positive double: the digits of
    ``s`` (``k`` of them, as few as possible) and ``n``, with ``s * 10**(n - k)`` reading as ``x``.

    If ``k`` digits can name ``x``, so can ``k + 1`` (append a zero), and 17 always can;
    so the least ``k`` is found by bisection.
    """
    exact = Fraction(x)
    decade = _decade(exact)
    low, high = 1, 17  # the least k lies in low..high
    while low < high:
        middle = (low + high) // 2
        if _candidates(x, exact, decade, middle):
            high = middle
        else:
            low = middle + 1
    _distance, _odd, s, n = min(_candidates(x, exact, decade, low))
    return str(s), n


def number_to_string(value: int | float) -> str:
    """``Number::toString(value)`` with radix 10 (an ``int`` taken as the nearest double)."""
    x = float(value)
    if math.isnan(x):
        return "NaN"
    if x == 0:
        return "0"
    if x < 0:
        return "-" + number_to_string(-x)
    if math.isinf(x):
        return "Infinity"
    digits, n = shortest_digits(x)
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    exponent = ("+" if n - 1 >= 0 else "-") + str(abs(n - 1))
    if k == 1:
        return digits + "e" + exponent
    return digits[0] + "." + digits[1:] + "e" + exponent


def code_points(text: str) -> list[int]:
    """The code points JavaScript sees in ``text``: its UTF-16 code units, a high surrogate
    followed by a low one read as one code point, any other surrogate as itself."""
    raw = text.encode("utf-16-le", "surrogatepass")
    units = [raw[i] | raw[i + 1] << 8 for i in range(0, len(raw), 2)]
    out: list[int] = []
    index = 0
    while index < len(units):
        unit = units[index]
        if 0xD800 <= unit <= 0xDBFF and index + 1 < len(units) and 0xDC00 <= units[index + 1] <= 0xDFFF:
            out.append(0x10000 + ((unit - 0xD800) << 10) + (units[index + 1] - 0xDC00))
            index += 2
        else:
            out.append(unit)
            index += 1
    return out


def quote(text: str) -> str:
    """``QuoteJSONString(text)``."""
    out = ['"']
    for point in code_points(text):
        if point in _SHORT:
            out.append(_SHORT[point])
        elif point < 0x20 or 0xD800 <= point <= 0xDFFF:
            out.append("\\u" + format(point, "04x"))
        else:
            out.append(chr(point))
    out.append('"')
    return "".join(out)


def is_array_index(key: str) -> bool:
    """True when ``key`` is an array index: a canonical decimal integer from 0 to ``2**32 - 2``."""
    return _INDEX.fullmatch(key) is not None and int(key) <= _LAST_INDEX


def property_order(keys: list[str]) -> list[str]:
    """``OrdinaryOwnPropertyKeys``: array indices ascending, then the rest in creation order."""
    indices = sorted((key for key in keys if is_array_index(key)), key=int)
    return indices + [key for key in keys if not is_array_index(key)]


def stringify(value: Json) -> str:
    """``JSON.stringify(value)`` for a JSON value (keys of a ``dict`` in creation order)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, int | float):
        return number_to_string(value) if math.isfinite(value) else "null"
    if isinstance(value, list):
        return "[" + ",".join(stringify(item) for item in value) + "]"
    return (
        "{" + ",".join(quote(key) + ":" + stringify(value[key]) for key in property_order(list(value))) + "}"
    )
