"""Atomic file output and the integrity of run files.

Every writer goes to a hidden temporary file in the destination directory
(``.{name}.{host}.{pid}.{token}.partial{suffix}``) and is moved into place with ``os.replace``
(atomic on POSIX within one file system), so an interrupted job never leaves a half-written
output; a killed writer leaves only its temporary file, which :func:`remove_stale_temps`
deletes once its process is gone. The token is 8 random hex digits and 8 of a checksum of the
rest of the name (:func:`_temp_token`): only names privrl itself made pass it, so a file someone
else left under a privrl directory is never deleted, even if it looks like a temporary. Files are created with mode 0666 minus the process umask
(like any ``open``), not mkstemp's 0600.

A run file (per-seed parquet) is written with :func:`write_run`, which records the parquet's
sha256 in its JSON metadata (``results_sha256``) and the run-code digest (``code``);
:func:`verify_run` checks a run file against its metadata and against what the config expects
before any downstream job uses it, and :func:`corrupt_run_files` finds run files whose content
no longer matches their recorded hash (truncated, edited).

A resumable run's saved state (:func:`write_state`, :func:`read_state`; privrl.runs.run) is one
``.npz`` of arrays plus a JSON ``meta`` entry, written atomically and fsynced before the rename,
so a killed writer leaves the previous state intact.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import secrets
import socket
import time
from pathlib import Path
from typing import Any, Iterator, Mapping

TEMP_MARK = ".partial"  # hidden temporaries: .{name}.{host}.{pid}.{token}.partial{suffix}
HASH_FIELD = "results_sha256"  # a run JSON's record of its parquet's sha256
FOREIGN_TEMP_AGE_S = 86400.0  # a temp of another host is stale after a day


def _host() -> str:
    return socket.gethostname().split(".")[0].replace(".", "_") or "host"


def _temp_token(name: str, host: str, pid: int, nonce: str) -> str:
    """``nonce`` (8 hex) followed by 8 hex of sha256 over the temporary's other name parts: the
    mark by which :func:`remove_stale_temps` knows a temporary as one privrl made."""
    return nonce + hashlib.sha256(f"privrl-temp:{name}.{host}.{pid}.{nonce}".encode()).hexdigest()[:8]


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; move it onto ``path`` only on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    ext = path.suffix if suffix is None else suffix
    while True:
        token = _temp_token(path.name, _host(), os.getpid(), secrets.token_hex(4))
        tmp_path = path.parent / f".{path.name}.{_host()}.{os.getpid()}.{token}{TEMP_MARK}{ext}"
        try:  # 0o666 & ~umask, like open(); O_EXCL: never another writer's file
            os.close(os.open(tmp_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            break
        except FileExistsError:
            continue
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        raise


def _temp_owner(p: Path) -> tuple[str, int] | None:
    """(host, pid) of a temporary written by :func:`atomic_path`, or None if ``p`` is not one
    (its name does not carry privrl's checksum token, :func:`_temp_token`)."""
    if not (p.name.startswith(".") and TEMP_MARK in p.name):
        return None
    parts = p.name[1: p.name.rindex(TEMP_MARK)].split(".")
    try:
        name, host, pid, token = ".".join(parts[:-3]), parts[-3], int(parts[-2]), parts[-1]
    except (IndexError, ValueError):
        return None
    if len(token) != 16 or _temp_token(name, host, pid, token[:8]) != token:
        return None
    return host, pid


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temps(root: str | os.PathLike) -> list[Path]:
    """Delete the temporaries of killed writers under ``root``: this host's whose process is gone,
    another host's older than a day; only names :func:`atomic_path` made (checksum token), never
    another file. Returns the deleted paths."""
    root, host, removed = Path(root), _host(), []
    if not root.is_dir():
        return removed
    for p in root.rglob(f".*{TEMP_MARK}*"):
        owner = _temp_owner(p)
        if owner is None or not p.is_file():
            continue
        stale = (not _alive(owner[1])) if owner[0] == host else time.time() - p.stat().st_mtime > FOREIGN_TEMP_AGE_S
        if stale:
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
            removed.append(p)
    return removed


def sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def write_json(path: str | os.PathLike, obj: Any) -> None:
    write_text(path, json.dumps(obj, indent=2, sort_keys=True, default=_json_default) + "\n")


def write_parquet(path: str | os.PathLike, df) -> str:
    """Write ``df`` atomically; returns the sha256 of the bytes written."""
    with atomic_path(path) as tmp:
        df.to_parquet(tmp, index=False)
        digest = sha256_file(tmp)
    return digest


def write_run(parquet: str | os.PathLike, info_path: str | os.PathLike, df, info: Mapping[str, Any]) -> dict:
    """A run file and its metadata: the parquet, then the JSON with the parquet's sha256
    (``results_sha256``) and the run-code digest (``code``, unless ``info`` has one). Returns the JSON."""
    import privrl

    out = dict(info)
    out[HASH_FIELD] = write_parquet(parquet, df)
    out.setdefault("code", privrl.code_version("run"))
    write_json(info_path, out)
    return out


class RunIntegrityError(ValueError):
    """A run file that does not match its metadata or the config (one-line message naming the file)."""


def _fail(parquet, problem: str) -> RunIntegrityError:
    return RunIntegrityError(f"{parquet}: {problem}; regenerate it with: snakemake --forcerun {parquet}")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return float(a) == float(b) or (math.isnan(float(a)) and math.isnan(float(b)))
    return a == b


def read_run_info(parquet: str | os.PathLike, info_path: str | os.PathLike) -> dict:
    """The run's JSON metadata, and its parquet's content checked against the recorded sha256."""
    try:
        info = json.loads(Path(info_path).read_text())
    except (OSError, ValueError) as e:
        raise _fail(parquet, f"unreadable metadata {info_path} ({type(e).__name__})") from None
    if not isinstance(info, dict) or HASH_FIELD not in info:
        raise _fail(parquet, f"metadata {info_path} records no {HASH_FIELD}")
    try:
        digest = sha256_file(parquet)
    except OSError as e:
        raise _fail(parquet, f"unreadable ({type(e).__name__})") from None
    if digest != info[HASH_FIELD]:
        raise _fail(parquet, f"content sha256 {digest[:12]} != {info[HASH_FIELD][:12]} recorded in {info_path} "
                             "(truncated or edited)")
    return info


def verify_run(parquet: str | os.PathLike, info_path: str | os.PathLike, expected: Mapping[str, Any]):
    """Check a run file against its metadata and the config; returns (DataFrame, info).

    ``expected`` (from the config, every key optional): ``agent``, ``params`` (each must equal the
    run's), ``episodes`` (K), ``seeds`` (list), ``experiment``, ``setting``, ``cell``, ``code``
    (run-code digest) and ``checkpoints`` (the episode numbers each seed must have, ascending).
    Raises :class:`RunIntegrityError` naming the file and the first mismatch.
    """
    import pandas as pd

    info = read_run_info(parquet, info_path)
    for key in ("agent", "experiment", "setting", "cell", "code"):
        if key in expected and info.get(key) != expected[key]:
            raise _fail(parquet, f"{key} {info.get(key)!r} in its metadata, {expected[key]!r} in the config")
    if "episodes" in expected and not _same(info.get("episodes"), int(expected["episodes"])):
        raise _fail(parquet, f"K = {info.get('episodes')} in its metadata, {expected['episodes']} in the config")
    for k, v in (expected.get("params") or {}).items():
        have = (info.get("params") or {}).get(k)
        if have is None or not _same(have, v):
            raise _fail(parquet, f"param {k} = {have!r} in its metadata, {v!r} in the config")
    seeds = [int(s) for s in expected.get("seeds", info.get("seeds", []))]
    if [int(s) for s in info.get("seeds", [])] != seeds:
        raise _fail(parquet, f"seeds {info.get('seeds')} in its metadata, {seeds} in the config")
    try:
        df = pd.read_parquet(parquet)
    except Exception as e:  # noqa: BLE001 (any reader error means an unusable file)
        raise _fail(parquet, f"unreadable parquet ({type(e).__name__})") from None
    if "seed" not in df or "episode" not in df:
        raise _fail(parquet, "no seed/episode columns")
    have_seeds = sorted(int(s) for s in df["seed"].unique())
    if have_seeds != sorted(seeds):
        raise _fail(parquet, f"holds seeds {have_seeds}, the config has {sorted(seeds)}")
    want = expected.get("checkpoints")
    K = int(expected.get("episodes", info.get("episodes", 0)))
    for s, g in df.groupby("seed", sort=True):
        eps = [int(e) for e in g["episode"]]
        if (want is not None and eps != [int(e) for e in want]) or (eps and eps[-1] != K):
            raise _fail(parquet, f"seed {s}: {len(eps)} checkpoints ending at episode {eps[-1] if eps else None}, "
                                 f"the config has {len(want) if want is not None else '?'} ending at K = {K}")
    return df, info


def corrupt_run_files(root: str | os.PathLike) -> list[tuple[Path, str]]:
    """(parquet, problem) of every run file under ``root`` whose content no longer matches the
    sha256 in its JSON (a ``*.json`` with ``results_sha256`` next to a ``*.parquet`` of its stem),
    or whose JSON is unreadable. Metadata without a parquet is left to Snakemake (missing output)."""
    out = []
    root = Path(root)
    if not root.is_dir():
        return out
    for parquet in root.rglob("*.parquet"):
        info_path = parquet.with_suffix(".json")
        if parquet.name.startswith(".") or not info_path.exists():
            continue
        try:
            read_run_info(parquet, info_path)
        except RunIntegrityError as e:
            if HASH_FIELD in info_path.read_text(errors="replace") or "unreadable metadata" in str(e):
                out.append((parquet, str(e)))
    return out


def write_state(path: str | os.PathLike, meta: Mapping[str, Any], arrays: list) -> None:
    """Save a run's state: ``arrays`` (as a0, a1, ...) and ``meta`` (JSON) in one uncompressed .npz,
    atomically and durably (fsync before the rename: the file is the old state or the new one)."""
    import numpy as np

    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, meta=np.array(json.dumps(meta, sort_keys=True, default=_json_default)),
                 **{f"a{i}": a for i, a in enumerate(arrays)})
        fh.flush()
        os.fsync(fh.fileno())


def read_state(path: str | os.PathLike) -> tuple[dict, list] | None:
    """(meta, arrays) of a state saved by :func:`write_state`; None if there is no readable one."""
    import zipfile

    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            return meta, [z[f"a{i}"] for i in range(int(meta["n_arrays"]))]
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
        return None


def save_figure(fig, path: str | os.PathLike, **kwargs) -> None:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=Path(path).suffix.lstrip(".") or "png", **kwargs)


def write_csv(path: str | os.PathLike, df) -> None:
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False)


def _json_default(obj: Any) -> Any:
    import numpy as np

    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")
