"""Helpers the tests share: type-strict comparison of JSON values, and test settings.

Python's ``==`` says ``True == 1 == 1.0`` and ignores dict key order; JSON
(and the TypeScript harness) does not. :func:`json_diff` compares the way the
wire does: same JSON type at every node (``bool`` is never a number, ``int`` is
never ``float``), same key order, same values. The implementation's frozen
containers count as the plain ones; nothing else does.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, Phase, settings

from dsh_session import Event, FrozenDict, FrozenList


def json_diff(left: Any, right: Any, path: str = "$") -> str | None:
    """Where ``left`` and ``right`` differ as JSON values, or ``None`` when they are the same."""
    kind_left, kind_right = _json_kind(left), _json_kind(right)
    if kind_left != kind_right:
        return f"{path}: {kind_left} {left!r} vs {kind_right} {right!r}"
    if kind_left == "object":
        if list(left) != list(right):
            return f"{path}: keys {list(left)!r} vs {list(right)!r}"
        for key in left:
            found = json_diff(left[key], right[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if kind_left == "array":
        if len(left) != len(right):
            return f"{path}: length {len(left)} vs {len(right)}"
        for index, (a, b) in enumerate(zip(left, right, strict=True)):
            found = json_diff(a, b, f"{path}[{index}]")
            if found is not None:
                return found
        return None
    if left != right:
        return f"{path}: {left!r} vs {right!r}"
    return None


def _json_kind(value: Any) -> str:
    kind = type(value)
    if value is None:
        return "null"
    if kind is bool:
        return "bool"
    if kind is int:
        return "int"
    if kind is float:
        return "float"
    if kind is str:
        return "str"
    if kind is dict or kind is FrozenDict:
        return "object"
    if kind is list or kind is FrozenList:
        return "array"
    return f"non-JSON {kind.__name__}"


def assert_same_json(left: Any, right: Any) -> None:
    """Fail with the first difference unless ``left`` and ``right`` are the same JSON value."""
    found = json_diff(left, right)
    assert found is None, found


def event_with(event: Event, **changes: Any) -> Event:
    """A hand-built copy of ``event`` with some fields changed (``data`` as a plain value)."""
    fields: dict[str, Any] = {
        "type": event.type,
        "seq": event.seq,
        "time": event.time,
        "data": event.data,
        "source_event_seqs": event.source_event_seqs,
        "surface_op": event.surface_op,
        "key_order": event.key_order,
    }
    fields.update(changes)
    return Event(**fields)


def is_fresh_copy(read: Callable[[], Any]) -> bool:
    """True when each ``read()`` hands out a value of its own: changing one changes no later one."""
    first = read()
    if not isinstance(first, dict | list):
        return True
    before = copy.deepcopy(first)
    for container in _all_containers(first):
        if isinstance(container, dict):
            container["\u0000probe"] = 1
        else:
            container.append("\u0000probe")
    return bool(read() == before and read() is not first)


def _all_containers(value: Any) -> list[Any]:
    found = [value]
    for item in value.values() if isinstance(value, dict) else value:
        if isinstance(item, dict | list):
            found.extend(_all_containers(item))
    return found


def deeply_frozen(value: Any) -> bool:
    """True when every container inside ``value`` is a frozen one (nothing can be changed)."""
    kind = type(value)
    if kind is FrozenDict:
        return all(deeply_frozen(item) for item in value.values())
    if kind is FrozenList:
        return all(deeply_frozen(item) for item in value)
    return kind in (type(None), bool, int, float, str)


#: ``DSH_HYPOTHESIS_PROFILE``: unset for the default (CI) sizes; ``thorough`` runs the property
#: tests and machines much longer; ``mutation`` gives the machines the small, derandomized,
#: unshrunk runs that ``verify/mutation.py`` makes against each mutant.
PROFILE = os.environ.get("DSH_HYPOTHESIS_PROFILE", "").lower()
THOROUGH = PROFILE == "thorough"
MUTATION = PROFILE == "mutation"

#: What a machine must tolerate on any profile.
_MACHINE_CHECKS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


def machine_settings(
    default: tuple[int, int], thorough: tuple[int, int], mutation: tuple[int, int] | None = None
) -> settings:
    """A stateful machine's settings, as ``(examples, steps)`` for each profile.

    The mutation profile (``mutation``, or a fifth of the default's examples) is derandomized,
    keeps no example database and stops at the first failure without shrinking: a mutant
    is judged by the same search every time, and a kill costs no more than finding it.
    """
    if MUTATION:
        examples, steps = mutation or (max(default[0] // 5, 1), default[1])
        return settings(
            max_examples=examples,
            stateful_step_count=steps,
            deadline=None,
            derandomize=True,
            database=None,
            phases=[Phase.explicit, Phase.generate],
            print_blob=False,
            suppress_health_check=list(HealthCheck),
        )
    examples, steps = thorough if THOROUGH else default
    return settings(
        max_examples=examples, stateful_step_count=steps, deadline=None, suppress_health_check=_MACHINE_CHECKS
    )


def property_settings(examples: int = 100) -> settings:
    """Settings for a plain property test: bounded by default, heavier when thorough."""
    return settings(
        max_examples=examples * 20 if THOROUGH else examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
