"""The ``privrl`` command's arguments: parsing and one-line checks of what a user types (agent and
environment parameters, exact integers such as 1e5, names with a "did you mean"). A user error is
a :class:`UsageError`: one line on stderr, exit status 2 (:mod:`privrl.cli.main`)."""
from __future__ import annotations

import argparse
import inspect
import math
from typing import Any, Callable, Mapping


class UsageError(ValueError):
    """A user error: reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, no usage block
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows defaults, except for required options and empty ones (None, [])."""

    def _get_help_string(self, action):
        if action.required or action.default is None or action.default == []:
            return action.help
        return super()._get_help_string(action)


# --- parameter checks: the domains are the agent's (AgentSpec.domains) ------------------------


def split_assignments(items: list[str], flag: str) -> dict[str, str]:
    """``["a=1", "b=x"]`` -> ``{"a": "1", "b": "x"}``; a malformed item is a UsageError naming ``flag``."""
    out = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name:
            raise UsageError(f"{flag}: expected NAME=VALUE, got {item!r}")
        out[name.strip()] = value.strip()
    return out


def check_agent_params(agent: str, raw: Mapping[str, str]) -> dict[str, float]:
    """Agent parameters from strings: known to the agent, finite numbers, in their domain."""
    from privrl.agents import get as get_agent

    defaults = get_agent(agent).defaults
    out = {}
    for name, text in raw.items():
        if name not in defaults:
            raise UsageError(f"--param {name}: agent {agent!r} has no such parameter; it takes {', '.join(defaults)}")
        try:
            x = float(text)
        except ValueError:
            raise UsageError(f"--param {name}: {text!r} is not a number") from None
        if not math.isfinite(x):
            raise UsageError(f"--param {name}: {text!r} is not a finite number")
        from privrl.plan.validate import check_param

        why = check_param(name, int(x) if x.is_integer() else x, [agent])
        if why is not None:
            raise UsageError(f"--param {name}: {why}")
        out[name] = x
    return out


_CASTS: dict[str, tuple[Callable[[str], Any], str]] = {"int": (int, "an integer"), "float": (float, "a number"),
                                                       "str": (str, "a string")}


def check_env_params(env: str, raw: Mapping[str, str]) -> dict[str, Any]:
    """Environment parameters from strings, cast by the environment function's annotations."""
    from privrl.rl.envs import ENVS

    sig = inspect.signature(ENVS[env])
    out = {}
    for name, text in raw.items():
        if name not in sig.parameters:
            raise UsageError(f"--env-param {name}: environment {env!r} has no such parameter; "
                             f"it takes {', '.join(sig.parameters)}")
        ann = sig.parameters[name].annotation
        cast, what = _CASTS.get(ann if isinstance(ann, str) else getattr(ann, "__name__", ""), (str, "a string"))
        try:
            out[name] = cast(text)
        except ValueError:
            raise UsageError(f"--env-param {name}: {text!r} is not {what}") from None
    return out


def _checked(cast: Callable[[str], Any], noun: str, ok: Callable[[Any], bool], want: str) -> Callable[[str], Any]:
    """An argparse ``type``: ``cast(text)``, refused with one line naming what was expected."""
    def parse(text: str) -> Any:
        try:
            x = cast(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {noun}") from None
        if not ok(x):
            raise argparse.ArgumentTypeError(f"must be {want}, got {text}")
        return x
    return parse


def exact_int(text: str) -> int:
    """An integer written as one: "100000", "1e5", "1.5e3" (exactly 1500); "1.5", "1e5.5" and
    "1e400" are refused (ValueError)."""
    try:
        return int(text)
    except ValueError:
        x = float(text)  # ValueError for "1e5.5"
        if not (math.isfinite(x) and x.is_integer()):
            raise ValueError(f"{text!r} is not an integer") from None
        return int(x)


_positive_int = _checked(exact_int, "an integer", lambda n: n >= 1, "a positive integer")
_nonnegative_int = _checked(exact_int, "an integer", lambda n: n >= 0, "an integer >= 0")


def _name_in(known: Callable[[], Any], noun: str, listing: str) -> Callable[[str], str]:
    """An argparse ``type``: a name of ``known()``, else one line with the closest name (difflib)."""
    def parse(text: str) -> str:
        from privrl.plan.validate import did_you_mean

        names = sorted(known())
        if text not in names:
            raise argparse.ArgumentTypeError(f"unknown {noun} {text!r}{did_you_mean(text, names)} "
                                             f"(one of {', '.join(names)}; see `{listing}`)")
        return text
    return parse
_nonnegative_float = _checked(float, "a number", lambda x: x >= 0 and math.isfinite(x), "a finite number >= 0")
