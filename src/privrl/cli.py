"""``privrl`` command: ad-hoc runs outside Snakemake, and the cost of a design.

    privrl run --env riverswim --agent ucbvi --episodes 20000 --seeds 5 --param bonus_scale=0.003
    privrl run ... --out results/adhoc/ucbvi.parquet      # per-seed results (+ .json run info)
    privrl estimate [--configfile config/config.yaml] [--cores 8]   # expected CPU / wall time
    privrl agents      # the agent registry
    privrl envs        # the environment registry

User errors (a bad parameter, an unknown name) exit with status 2 and one line on stderr.
"""
from __future__ import annotations

import argparse
import inspect
import math
import os
import sys
import warnings
import time
from pathlib import Path
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


# --- parameter checks: the domains are privrl.validate.PARAM_DOMAINS (one table) ---------------


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
        from privrl.validate import check_param

        why = check_param(name, int(x) if x.is_integer() else x)
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


_positive_int = _checked(int, "an integer", lambda n: n >= 1, "a positive integer")
_nonnegative_int = _checked(int, "an integer", lambda n: n >= 0, "an integer >= 0")
_nonnegative_float = _checked(float, "a number", lambda x: x >= 0 and math.isfinite(x), "a finite number >= 0")


# --- commands ---------------------------------------------------------------------------------

def _progress(done: int, total: int, elapsed: float) -> None:
    end = "\n" if done == total else ""
    print(f"\r  seed {done}/{total}  {elapsed:7.1f}s", end=end, file=sys.stderr, flush=True)


def _cmd_run(args: argparse.Namespace) -> int:
    from privrl import io
    from privrl.rl import envs, seeding
    from privrl.results.aggregate import fit_cell
    from privrl.run import run

    env_params = check_env_params(args.env, split_assignments(args.env_param, "--env-param"))
    params = check_agent_params(args.agent, split_assignments(args.param, "--param"))
    from privrl.agents import simulation

    try:
        simulation.check(args.agent, args.simulation)
    except ValueError as exc:
        raise UsageError(f"--simulation: {exc}") from None
    if args.out is not None and args.out.suffix != ".parquet":
        raise UsageError(f"--out: {str(args.out)!r} must end in .parquet (the run info goes next to it as .json)")
    try:
        mdp = envs.make(args.env, **env_params)
    except ValueError as exc:
        raise UsageError(f"--env-param: {exc}") from None
    if (args.chunk_episodes or args.chunk_minutes) and args.state_dir is None:
        raise UsageError("--chunk-episodes/--chunk-minutes: give --state-dir DIR, where the chunks' state is saved")
    show = sys.stderr.isatty() if args.progress == "auto" else args.progress == "on"
    t0, c0 = time.perf_counter(), time.process_time()
    df, info = run(args.agent, params, mdp, args.episodes, range(args.seeds), experiment="cli",
                   setting=f"{args.env}/{args.agent}", on_seed=_progress if show else None,
                   chunk_episodes=args.chunk_episodes, chunk_seconds=60.0 * args.chunk_minutes,
                   state_dir=args.state_dir, simulation=args.simulation)
    for seed, k in info.get("resumed_from", {}).items():
        print(f"resumed seed {seed} from episode {k} (state in {args.state_dir})")
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    if args.out is not None:
        io.write_run(args.out, args.out.with_suffix(".json"), df, info)  # the JSON records the content hash
    final = df[df.episode == args.episodes].cum_regret.to_numpy()
    print(f"{args.agent} on {mdp!r}")
    print(f"  params: {info['params']}  privacy: {info['privacy_model']}")
    for g in info["guarantees"]:
        print(f"  guarantee: {g['model']} eps={g['epsilon']:.4g} delta={g['delta']:.3g} ({g['source']})")
    print(f"  K={args.episodes}, seeds={args.seeds}: regret at K = {final.mean():.2f} "
          f"(sd {final.std(ddof=1) if final.size > 1 else 0.0:.2f})")
    if args.episodes >= 1000:
        fit = fit_cell(df, seeding.generator("cli-fit", args.agent, 0), n_boot=200)
        print(f"  K-exponent (last two decades): {fit['exponent']:.3f} [{fit['exponent_lo']:.3f}, "
              f"{fit['exponent_hi']:.3f}], bonus saturated {fit['saturated_fraction']:.0%} of the window")
    print(f"  {args.episodes * args.seeds / max(wall, 1e-9):,.0f} episodes x seeds / s (wall {wall:.2f}s, "
          f"CPU {cpu:.2f}s, numba compile included on a cold cache)")
    if args.out is not None:
        print(f"  wrote {args.out} and {args.out.with_suffix('.json')}")
    return 0


def _read_design(configfile: Path) -> dict:
    import yaml

    from privrl import experiments

    try:
        config = yaml.safe_load(configfile.read_text())
    except OSError as exc:
        raise UsageError(f"--configfile: cannot read {str(configfile)!r} ({exc.strerror})") from None
    if not isinstance(config, dict) or ("experiments" not in config and "overlay_of" not in config):
        raise UsageError(f"--configfile: {str(configfile)!r} has no 'experiments' and no 'overlay_of'")
    if "overlay_of" in config:  # relative to the repository root: the cwd, else the config's parent's parent
        roots = [Path.cwd(), configfile.resolve().parent.parent]
        root = next((r for r in roots if (r / config["overlay_of"]).is_file()), None)
        if root is None:
            raise UsageError(f"--configfile: its base {config['overlay_of']!r} is not found from {roots[0]} or {roots[1]}")
        config = experiments.resolve_overlay(config, root)
    return config


def _duration(s: float) -> str:
    return f"{s:.1f} s" if s < 120 else f"{s / 60:.1f} min" if s < 7200 else f"{s / 3600:.2f} h"


def _cmd_estimate(args: argparse.Namespace) -> int:
    from privrl import cost

    config = _read_design(args.configfile)
    table = cost.load_table(args.table)
    with warnings.catch_warnings(record=True) as caught:  # unmeasured agents: planned, one line each
        warnings.simplefilter("always")
        costs = cost.estimate_cost(config, table)
    for w in caught:
        print(f"privrl estimate: warning: {w.message}", file=sys.stderr)
    summary = cost.summarize(costs)
    cpus = ", ".join(sorted(set(table["cpu"].astype(str))))
    dates = ", ".join(sorted(set(table["date"].astype(str))))
    print(f"design {args.configfile}: {len(costs)} cells in {int(costs.jobs.sum())} run jobs; throughput measured on {cpus} ({dates}), {args.table}")
    print(f"{'experiment':18s} {'cells':>5s} {'episodes x seeds':>17s} {'eps*seeds/s used':>17s} {'CPU time':>10s}")
    for r in summary.itertuples():
        print(f"{r.experiment:18s} {r.cells:5d} {r.episodes_x_seeds:17,.0f} {r.episodes_per_s:17,.0f} "
              f"{_duration(r.est_cpu_s):>10s}")
    total = float(costs.est_cpu_s.sum())
    jobs = cost.job_seconds(costs)
    wall = cost.wall_time(jobs, args.cores)
    print(f"total: {total / 3600:.2f} CPU-hours ({total / 60:.0f} CPU-min); wall ~ {_duration(wall)} on "
          f"{args.cores} cores (longest run job {_duration(float(jobs.max()))})")
    print(f"  includes {cost.JOB_OVERHEAD_S:g} s per run job (python start, imports); not the analysis jobs "
          f"or numba compilation on a cold cache (~30-90 s)")
    if args.per_cell:
        cols = ["experiment", "env", "cell", "episodes", "seeds", "measured_on", "scale", "episodes_per_s", "est_cpu_s"]
        print(costs[cols].to_string(index=False, float_format=lambda x: f"{x:,.3g}"))
    return 0


def _cmd_agents(_: argparse.Namespace) -> int:
    from privrl.agents import REGISTRY

    for name, spec in sorted(REGISTRY.items()):
        recon = " [reconstruction]" if spec.reconstruction else ""
        print(f"{name:22s} {spec.privacy_model:5s} {dict(spec.defaults)}  -- {spec.reference}{recon}")
    return 0


def _cmd_envs(_: argparse.Namespace) -> int:
    from privrl.rl.envs import ENVS

    for name, fn in ENVS.items():
        print(f"{name:15s} {inspect.signature(fn)}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from privrl.agents import REGISTRY
    from privrl.rl.envs import ENVS

    fmt = _HelpFormatter
    p = _Parser(prog="privrl", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    r = sub.add_parser("run", help="run one agent on one environment over seeds and print a summary",
                       description="Run one agent on one environment over seeds 0..N-1 and print a summary.",
                       formatter_class=fmt)
    r.add_argument("--env", required=True, choices=sorted(ENVS), help="environment (see `privrl envs`)")
    r.add_argument("--agent", required=True, choices=sorted(REGISTRY), help="agent (see `privrl agents`)")
    r.add_argument("--episodes", type=_positive_int, default=10000, help="episodes K per seed")
    r.add_argument("--seeds", type=_positive_int, default=5, help="number of seeds (0..N-1)")
    r.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="agent parameter, repeatable; defaults per agent in `privrl agents`")
    r.add_argument("--env-param", action="append", default=[], metavar="NAME=VALUE",
                   help="environment parameter, repeatable; defaults in `privrl envs`")
    r.add_argument("--out", type=Path, default=None, metavar="FILE.parquet",
                   help="write the per-seed results here and the run info to FILE.json (atomically)")
    r.add_argument("--progress", choices=("auto", "on", "off"), default="auto",
                   help="per-seed progress on stderr; auto = when stderr is a terminal")
    r.add_argument("--state-dir", type=Path, default=None, metavar="DIR",
                   help="resumable run: save each seed's state here after every chunk and resume from it "
                        "(a killed run rerun with the same arguments continues where it was)")
    r.add_argument("--chunk-episodes", type=_nonnegative_int, default=0, metavar="N",
                   help="with --state-dir: save the state every N episodes (0 = off; results are identical)")
    r.add_argument("--chunk-minutes", type=_nonnegative_float, default=0.0, metavar="M",
                   help="with --state-dir: save the state about every M minutes (0 = off)")
    r.add_argument("--simulation", choices=("episode", "aggregate"), default="episode",
                   help="episode by episode (the reference) or aggregate: a block of a fixed policy drawn at "
                        "once, exactly in law (sdp-pe, sdp-pe-jdp, sdp-pe-ldp, pe)")
    r.set_defaults(fn=_cmd_run)
    e = sub.add_parser("estimate", help="expected CPU and wall time of a design, from the measured throughput",
                       description="Expected CPU time per experiment of a design (overlays resolved), from the "
                                   "measured agent throughput (privrl.cost).", formatter_class=fmt)
    e.add_argument("--configfile", type=Path, default=Path("config/config.yaml"), help="design or overlay")
    e.add_argument("--cores", type=_positive_int, default=os.cpu_count() or 1, help="cores for the wall time")
    e.add_argument("--table", type=Path, default=Path(__file__).with_name("throughput.csv"), help="measured throughput (bench/agent_throughput.py)")
    e.add_argument("--per-cell", action="store_true", help="also print every cell's estimate")
    e.set_defaults(fn=_cmd_estimate)
    sub.add_parser("agents", help="list registered agents").set_defaults(fn=_cmd_agents)
    sub.add_parser("envs", help="list registered environments").set_defaults(fn=_cmd_envs)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args)
    except ValueError as exc:  # UsageError, and the library's own checks (an env or agent refusing a value)
        print(f"privrl {args.cmd}: error: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
              file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
