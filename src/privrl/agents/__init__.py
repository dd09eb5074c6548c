"""Agents: one registry (:data:`REGISTRY`); every module of this package registers its agents."""
import importlib
import pkgutil

from .registry import REGISTRY, AgentSpec, get, register  # noqa: F401

_INFRA = {"registry"}
for _mod in pkgutil.iter_modules(__path__):
    if _mod.name not in _INFRA and not _mod.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_mod.name}")
