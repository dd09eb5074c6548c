"""Fixtures shared by the audit tests."""
import pytest


@pytest.fixture
def temporary_agent():
    from privrl.agents import registry

    names = []

    def add(spec):
        registry.register(spec)
        names.append(spec.name)
        return spec.name
    yield add
    for n in names:
        registry.REGISTRY.pop(n)
