"""Reading config files: bounded, strict YAML and overlays, every problem one line.

* :func:`load_yaml`: a config file of at most :data:`MAX_CONFIG_BYTES`, whose tree with every
  alias expanded has at most :data:`MAX_CONFIG_NODES` nodes (a "billion laughs" alias bomb of
  2 KB is refused instead of being expanded into hundreds of MB of params and JSON), duplicate
  keys refused with both lines, merge keys (``<<: *anchor``) accepted, syntax errors reported as
  ``file:line: problem``.
* :func:`resolve_overlay`: an overlay (``overlay_of: <base>``) deep-merged onto its base; one
  level only: an overlay of an overlay is refused as "chains unsupported", one that leads back
  to a file of the chain as a "cycle", and a missing base names the key and the path.

Errors are :class:`ConfigFileError` (a ValueError) with a one-line message.
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Mapping

import yaml

MAX_CONFIG_BYTES = 1 << 20  # 1 MiB; the shipped designs are < 20 KB
MAX_CONFIG_NODES = 200_000  # nodes with aliases expanded; the default design has ~4,000
MERGE_TAG = "tag:yaml.org,2002:merge"


class ConfigFileError(ValueError):
    """A config file that cannot be read as a design (one-line message naming the file)."""


class StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys (merge keys ``<<`` are not duplicates)."""


def _mapping_without_duplicates(loader: StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        if key_node.tag == MERGE_TAG:
            continue
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first at line {seen[key] + 1})", key_node.start_mark)
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep)  # SafeConstructor: flattens the merge keys first


StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)


def expanded_size(node: yaml.Node, limit: int) -> int:
    """Number of nodes of the tree under ``node`` with every alias expanded (an alias is the same
    node object again), computed once per distinct node; stops counting past ``limit``."""
    sizes: dict[int, int] = {}

    def size(n: yaml.Node) -> int:
        if id(n) in sizes:
            return sizes[id(n)]
        sizes[id(n)] = limit + 1  # a recursive alias is unbounded
        if isinstance(n, yaml.MappingNode):
            total = 1 + sum(size(k) + size(v) for k, v in n.value)
        elif isinstance(n, yaml.SequenceNode):
            total = 1 + sum(size(v) for v in n.value)
        else:
            total = 1
        sizes[id(n)] = min(total, limit + 1)
        return sizes[id(n)]

    return size(node)


def load_yaml(path: str | Path) -> Any:
    """A config file's content; :class:`ConfigFileError` naming ``path`` (and the line) otherwise."""
    path = Path(path)
    try:
        n_bytes = path.stat().st_size
        if n_bytes > MAX_CONFIG_BYTES:
            raise ConfigFileError(f"{path}: {n_bytes} bytes, more than a config may have ({MAX_CONFIG_BYTES})")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigFileError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigFileError(f"{path}: unreadable ({type(e).__name__}: {e})") from None
    loader = StrictLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        n = expanded_size(node, MAX_CONFIG_NODES)
        if n > MAX_CONFIG_NODES:
            raise ConfigFileError(f"{path}: its aliases expand to more than {MAX_CONFIG_NODES} nodes "
                                  "(an alias bomb, or a recursive alias); write the values out")
        return loader.construct_document(node)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        raise ConfigFileError(f"{path}{line}: {e.problem or e.context}") from None
    except yaml.YAMLError as e:
        raise ConfigFileError(f"{path}: {str(e).splitlines()[0]}") from None
    finally:
        loader.dispose()


def yaml_errors(path: str | Path) -> list[str]:
    """[] if ``path`` loads (:func:`load_yaml`), else its one-line error."""
    try:
        load_yaml(path)
    except ConfigFileError as e:
        return [str(e)]
    return []


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict:
    """``base`` with ``over`` merged in: mappings recursively, a null value removes the key,
    anything else (lists too) replaces."""
    out = copy.deepcopy(dict(base))
    for k, v in over.items():
        if v is None:
            out.pop(k, None)
        elif isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def resolve_overlay(config: Mapping[str, Any], root: str | Path = ".", path: str | Path | None = None) -> dict:
    """An overlay config (key ``overlay_of``: path of its base, relative to ``root``) merged onto
    its base (:func:`deep_merge`); a config without ``overlay_of`` as it is. ``path``:
    the overlay's own file, if any (to name it and to tell a cycle from a chain)."""
    if not isinstance(config, Mapping):
        raise ConfigFileError(f"{path or 'config'}: not a mapping of keys")
    if "overlay_of" not in config:
        return dict(config)
    where = f"{path}: overlay_of" if path else "overlay_of"
    base_name = config["overlay_of"]
    if not isinstance(base_name, str) or not base_name.strip():
        raise ConfigFileError(f"{where}: {base_name!r} is not the path of a config file")
    base_path = Path(root, base_name)
    if not base_path.is_file():
        raise ConfigFileError(f"{where}: {base_name!r}: no such file (relative to {root})")
    base = load_yaml(base_path)
    if not isinstance(base, Mapping):
        raise ConfigFileError(f"{base_path}: not a mapping of keys")
    if "overlay_of" in base:
        chain = [Path(p).resolve() for p in (path, base_path) if p is not None]
        nxt = Path(root, str(base["overlay_of"])).resolve()
        kind = "a cycle" if nxt in chain else "an overlay of an overlay: chains unsupported"
        raise ConfigFileError(f"{where}: {base_name!r} is itself an overlay (of {base['overlay_of']!r}): {kind}; "
                              "point overlay_of at a whole design")
    known = base.get("experiments") or {}
    for name, exp in (config.get("experiments") or {}).items():
        if name not in known and (exp is None or "envs" not in exp):
            raise ConfigFileError(f"{path or 'config'}: experiments.{name}: not an experiment of {base_name}"
                                  f"{did_you_mean(name, known)} (a new experiment needs its envs and cells)")
    out = deep_merge(base, {k: v for k, v in config.items() if k != "overlay_of"})
    # an experiment the overlay edits keeps only the prose the overlay gives: the base's text names
    # the base's sizes (a smoke caption must not say "K = 1e6, 4 seeds")
    for name, exp in (config.get("experiments") or {}).items():
        if exp and out["experiments"].get(name):
            out["experiments"][name] = {k: v for k, v in out["experiments"][name].items()
                                        if k not in OVERLAY_PROSE or k in exp}
    return out


OVERLAY_PROSE = ("description", "note")  # an experiment's text, written for the sizes beside it


def did_you_mean(name: Any, known) -> str:  # noqa: ANN001 (any iterable of names)
    """"; did you mean 'x'?" for the closest known name (difflib), else ""."""
    import difflib

    close = difflib.get_close_matches(str(name), [str(k) for k in known], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""
