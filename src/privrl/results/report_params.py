"""Rule params that read as text in the Snakemake report's info pane.

The report prints each job's params with ``str()``; a dict or list param prints as a Python
repr (braces, quotes). :func:`readable` wraps a param's top level in a dict/list subclass
whose ``str`` is plain text ("key: value; key: (k: v, k: v)") while its ``repr`` -- what
Snakemake's params rerun trigger records -- and its content are unchanged: wrapping a param
reruns nothing and the scripts read the same data.
"""
from __future__ import annotations

from typing import Any, Mapping


def readable_text(x: Any, top: bool = True) -> str:
    """``x`` (dicts, lists, scalars) as one line of text: a top-level dict's items separated by
    "; ", nested ones in parentheses; floats in ``g`` format; strings unquoted."""
    if isinstance(x, Mapping):
        body = ("; " if top else ", ").join(f"{k}: {readable_text(v, False)}" for k, v in x.items())
        return body if top else f"({body})"
    if isinstance(x, (list, tuple)):
        body = ("; " if top else ", ").join(readable_text(v, False) for v in x)
        return body if top else f"[{body}]"
    if isinstance(x, float):
        return f"{x:g}"
    return str(x)


class ReadableDict(dict):
    """A dict param: ``str`` is :func:`readable_text`, ``repr`` and content a dict's."""

    def __str__(self) -> str:
        return readable_text(self)


class ReadableList(list):
    """A list param: ``str`` is :func:`readable_text`, ``repr`` and content a list's."""

    def __str__(self) -> str:
        return readable_text(self)


def readable(x: Any) -> Any:
    """``x`` with a readable ``str`` (dicts and lists; anything else unchanged)."""
    if isinstance(x, Mapping):
        return ReadableDict(x)
    if isinstance(x, (list, tuple)):
        return ReadableList(x)
    return x
