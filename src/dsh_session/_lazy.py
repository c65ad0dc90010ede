"""A package's names imported on first use (PEP 562): the package root and ``persistence``.

A package lists where each exported name lives; its ``__getattr__`` imports that
module when the name is first asked for and keeps the value, so importing the
package runs none of its modules. A submodule asked for as an attribute is
imported too, as it was reachable when the packages loaded every module.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from typing import Any


def lazy_names(
    package: str, modules: dict[str, str], namespace: dict[str, Any], exports: list[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose globals are ``namespace``:
    each name of ``modules`` is imported from ``package.<its module>`` when first asked for."""

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            submodule = f"{package}.{name}"
            if name.isidentifier() and name[:2] != "__" and importlib.util.find_spec(submodule):
                return importlib.import_module(submodule)
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *exports})

    return __getattr__, __dir__
