import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(20261122)


@pytest.fixture(autouse=True)
def _close_figures():
    """Close the figures a test's analyses drew (an AnalysisResult keeps its figure open): one
    worker runs hundreds of tests, and pyplot keeps every open figure alive."""
    yield
    import sys

    if "matplotlib.pyplot" in sys.modules:  # never import matplotlib for a test that did not
        sys.modules["matplotlib.pyplot"].close("all")


# The slowest test files (CPU-s, one process, cold cache: docs/timings.md), run first: under
# pytest-xdist (`-n auto --dist loadfile --no-loadscope-reorder`: without the last flag xdist
# re-sorts the files by their number of tests) each file goes whole to the next free worker, so
# starting with the longest ones lets the workers finish together (longest-first scheduling).
HEAVY_FILES = {
    "tests/workflow/test_reruns.py": 629,
    "tests/audit/test_agent_check.py": 418,
    "tests/rl/test_cpu_targets.py": 265,
    "tests/workflow/test_dag.py": 235,
    "tests/workflow/test_readme_commands.py": 165,
}


def pytest_collection_modifyitems(config, items):
    def weight(item) -> int:
        return HEAVY_FILES.get(item.nodeid.split("::")[0], 0)

    items.sort(key=lambda item: -weight(item))  # stable: every file keeps its own order
