"""Reading config files: bounded, strict YAML and overlays, every problem one line.

* :func:`load_yaml`: a config file of at most :data:`MAX_CONFIG_BYTES`, whose tree with every
  alias expanded has at most :data:`MAX_CONFIG_NODES` nodes (a "billion laughs" alias bomb of
  2 KB is refused instead of being expanded into hundreds of MB of params and JSON), duplicate
  keys refused with both lines, merge keys (``<<: *anchor``) accepted, syntax errors reported as
  ``file:line: problem``.
  A path that is not a regular file is refused saying what it is (a directory, a device: never
  read, so ``/dev/zero`` cannot fill the memory), and a file that is not UTF-8 text saying
  which encoding it looks like (a UTF-16 byte-order mark, NUL bytes, the first bad byte).
* :func:`resolve_overlay`: an overlay (``overlay_of: <base>``) deep-merged onto its base; one
  level only: an overlay of an overlay is refused as "chains unsupported", one that leads back
  to a file of the chain as a "cycle", and a missing base names the key and the path (a base
  that is a directory or a device says so). A design whose top level or ``experiments`` is not
  a mapping (a list, say) is refused naming the key before anything iterates it.
* :func:`expand_path`: ``~`` and environment variables (``$VAR``, ``${VAR}``) in a path the
  config gives (``overlay_of``, ``results_dir``, ``store_dir``, ``figures_dir``) are expanded,
  the same way wherever the path is read; an unset variable or an unknown ``~user`` is refused.

Errors are :class:`ConfigFileError` (a ValueError) with a one-line message.
"""
from __future__ import annotations

import codecs
import copy
import os
import re
import stat
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
    if (why := not_a_config_file(path)) is not None:
        raise ConfigFileError(f"{path}: {why}")
    try:
        n_bytes = path.stat().st_size
        if n_bytes > MAX_CONFIG_BYTES:
            raise ConfigFileError(f"{path}: {n_bytes} bytes, more than a config may have ({MAX_CONFIG_BYTES})")
        data = path.read_bytes()
    except OSError as e:
        raise ConfigFileError(f"{path}: unreadable ({e.strerror or type(e).__name__})") from None
    if (why := not_utf8(data)) is not None:
        raise ConfigFileError(f"{path}: {why}; save it as UTF-8")
    text = data.decode("utf-8")
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


# what a path is, by its stat type: what a refusal says instead of "no such file"
FILE_KINDS = {stat.S_IFREG: "a regular file", stat.S_IFDIR: "a directory", stat.S_IFCHR: "a character device",
              stat.S_IFBLK: "a block device", stat.S_IFIFO: "a named pipe (FIFO)", stat.S_IFSOCK: "a socket",
              stat.S_IFLNK: "a broken symbolic link"}
REGULAR, DIRECTORY, MISSING = FILE_KINDS[stat.S_IFREG], FILE_KINDS[stat.S_IFDIR], "missing"


def file_kind(path: str | os.PathLike) -> str:
    """What ``path`` is (symbolic links followed): one of :data:`FILE_KINDS`' phrases, or
    :data:`MISSING`; a path that cannot be examined (a symlink loop, no permission) is
    described by the OS's reason. (Here, not in privrl.io: io is in every run's code digest.)"""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # nothing there (or a file on the way: its caller names it)
        return FILE_KINDS[stat.S_IFLNK] if os.path.islink(path) else MISSING
    except OSError as e:
        return f"not examinable ({e.strerror or type(e).__name__})"
    return FILE_KINDS.get(stat.S_IFMT(mode), "a special file")


def not_a_config_file(path: str | Path) -> str | None:
    """None if ``path`` is a regular file (symbolic links followed), else what it is instead
    ("no such file", "a directory, not a config file", ...: :data:`FILE_KINDS`)."""
    kind = file_kind(path)
    if kind == REGULAR:
        return None
    return "no such file" if kind == MISSING else f"{kind}, not a config file"


# byte-order marks, longest first (the UTF-32 LE mark begins with the UTF-16 LE one)
BYTE_ORDER_MARKS = ((codecs.BOM_UTF32_LE, "UTF-32 (little-endian)"), (codecs.BOM_UTF32_BE, "UTF-32 (big-endian)"),
                    (codecs.BOM_UTF16_LE, "UTF-16 (little-endian)"), (codecs.BOM_UTF16_BE, "UTF-16 (big-endian)"))


def not_utf8(data: bytes) -> str | None:
    """None if ``data`` is UTF-8 text (a UTF-8 byte-order mark allowed), else why not, in a phrase:
    the encoding its byte-order mark names, NUL bytes (UTF-16 without a mark, or binary), or the
    first byte that is not UTF-8 with its line and column (Latin-1, Windows-1252...)."""
    bom = next((name for mark, name in BYTE_ORDER_MARKS if data.startswith(mark)), None)
    if bom is not None:
        return f"not UTF-8 text: it is {bom} (it starts with that byte-order mark)"
    if b"\0" in data:
        line = data.count(b"\n", 0, data.index(b"\0")) + 1
        return f"not UTF-8 text: NUL bytes from line {line} (UTF-16 without a byte-order mark, or a binary file)"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        return (f"not UTF-8 text: byte 0x{data[e.start]:02x} at line {line}, column {col} "
                "(Latin-1, Windows-1252 or another 8-bit encoding?)")
    return None


_UNSET_VARIABLE = re.compile(r"\$(\w+|\{[^}]*\})")


def expand_path(value: str) -> tuple[str, str | None]:
    """(``value`` with ``~`` and environment variables expanded, None), or (``value``, why not)
    when a variable is not set or ``~user`` names no user. The one expansion of every path a
    config gives (overlay_of, results_dir, store_dir, figures_dir): ``~/x`` and ``$HOME/x`` are
    the same directory, never a folder named ``~`` or ``$HOME``."""
    out = os.path.expandvars(os.path.expanduser(value))
    if (m := _UNSET_VARIABLE.search(out)) is not None:
        return value, f"environment variable {m.group(1).strip('{}')} is not set"
    if out.startswith("~"):
        return value, f"{out.split('/')[0]!r}: no such user (~ expands to a home directory)"
    return out, None


# Python type of a YAML value -> how a refusal names it
YAML_KINDS = {dict: "a mapping", list: "a list", str: "a string", int: "an integer", float: "a number",
              bool: "a boolean", type(None): "empty (null)"}


def yaml_kind(value: Any) -> str:
    """How a refusal names the YAML type of ``value``: "a list", "a string", ..."""
    return YAML_KINDS.get(type(value), type(value).__name__)


def key_line(path: str | Path, keys: tuple) -> int | None:
    """The line of the key ``keys[-1]`` (below ``keys[:-1]``) in the YAML file ``path``, else None."""
    try:
        node = yaml.compose(Path(path).read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    line = None
    for k in keys:
        hit = next((kv for kv in node.value if kv[0].value == str(k)), None) if isinstance(node, yaml.MappingNode) else None
        if hit is None:
            return None
        line, node = hit[0].start_mark.line + 1, hit[1]
    return line


def shape_errors(config: Any, path: str | Path | None = None, overlay: bool = False) -> list[str]:
    """What a design's top level must be before anything iterates it: a mapping whose
    ``experiments`` (if given) map names to experiments (mappings; null too in an ``overlay``,
    where it removes the base's experiment). One line each, naming ``path:line`` (the config's
    file, if any) and the key."""
    def at(*keys) -> str:
        line = key_line(path, keys) if path is not None else None
        return f"{path or 'config'}" + (f":{line}" if line else "")

    if not isinstance(config, Mapping):
        return [f"{at()}: {yaml_kind(config)}, not a mapping of config keys (results_dir: ..., experiments: ...)"]
    exps = config.get("experiments", {})
    if not isinstance(exps, Mapping):
        return [f"{at('experiments')}: experiments: {yaml_kind(exps)}, not a mapping of experiment names to "
                "experiments (name: {envs: ..., cells: ..., episodes: ..., seeds: ...})"]
    allowed = (Mapping, type(None)) if overlay else (Mapping,)
    return [f"{at('experiments', name)}: experiments.{name}: {yaml_kind(exp)}, not an experiment (a mapping: envs, "
            f"cells, episodes, seeds{'; null removes it' if overlay else ''})"
            for name, exp in exps.items() if not isinstance(exp, allowed)]

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
    overlay = isinstance(config, Mapping) and "overlay_of" in config
    if errs := shape_errors(config, path, overlay):
        raise ConfigFileError(errs[0])
    if not overlay:
        return dict(config)
    where = f"{path}: overlay_of" if path else "overlay_of"
    base_name = config["overlay_of"]
    if not isinstance(base_name, str) or not base_name.strip():
        raise ConfigFileError(f"{where}: {base_name!r} is not the path of a config file")
    base_path, why = base_path_of(base_name, root)
    if why is not None:
        raise ConfigFileError(f"{where}: {base_name!r}: {why}")
    base = load_yaml(base_path)
    if errs := shape_errors(base, base_path, isinstance(base, Mapping) and "overlay_of" in base):  # a chain: below
        raise ConfigFileError(errs[0])
    if "overlay_of" in base:
        chain = [Path(p).resolve() for p in (path, base_path) if p is not None]
        nxt = base_path_of(str(base["overlay_of"]), root)[0].resolve()
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


def base_path_of(base_name: str, root: str | Path) -> tuple[Path, str | None]:
    """(the file an ``overlay_of`` value names: ``~`` and variables expanded (:func:`expand_path`),
    relative to ``root``; None), or (that path, why it is not a config file: an unset variable,
    "no such file (relative to root)", "a directory, not a config file", ...)."""
    expanded, why = expand_path(base_name)
    p = Path(root, expanded)
    if why is None and (why := not_a_config_file(p)) == "no such file" and not Path(expanded).is_absolute():
        why += f" (relative to {root})"
    return p, why


OVERLAY_PROSE = ("description", "note")  # an experiment's text, written for the sizes beside it


def did_you_mean(name: Any, known) -> str:  # noqa: ANN001 (any iterable of names)
    """"; did you mean 'x'?" for the closest known name (difflib), else ""."""
    import difflib

    close = difflib.get_close_matches(str(name), [str(k) for k in known], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""
