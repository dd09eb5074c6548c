"""Agents: one registry (:data:`REGISTRY`), one module per algorithm family."""
from .base import REGISTRY, AgentSpec, get, register  # noqa: F401

_MODULES = ("ucbvi",)


def _import_all() -> None:
    import importlib

    for mod in _MODULES:
        importlib.import_module(f"{__name__}.{mod}")


_import_all()
_load_all = True
