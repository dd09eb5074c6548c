"""``privrl`` command: ad-hoc runs outside Snakemake, and the cost of a design.

    privrl run --env riverswim --agent ucbvi --episodes 20000 --seeds 5 --param bonus_scale=0.003
    privrl run ... --out results/adhoc/ucbvi.parquet      # per-seed results (+ .json run info)
    privrl run --experiment E --setting ENV/CELL [--config FILE]   # a pipeline cell, bit for bit
    privrl estimate [--configfile config/config.yaml] [--cores 8]   # expected CPU / wall time
    privrl agents      # the agent registry
    privrl check-agent NAME   # the agent contract: determinism, chunks, door-only, audit, throughput
    privrl envs        # the environment registry

User errors (a bad parameter, an unknown name) exit with status 2 and one line on stderr; a design
refused by the door the Snakefile uses (privrl.plan.validate.checked_design) one line per problem.
"""
from __future__ import annotations

import argparse
import inspect
import os
import sys
import warnings
import time
from pathlib import Path
from typing import Callable


from privrl.cli.args import (  # noqa: F401 (re-exported: the CLI's argument checks)
    UsageError, _HelpFormatter, _name_in, _nonnegative_float, _nonnegative_int, _Parser, _positive_int,
    check_agent_params, check_env_params, exact_int, split_assignments)


# --- commands ---------------------------------------------------------------------------------

PROGRESS_CHUNK_S = 2.0  # with progress shown and no chunking asked for: chunks of ~2 s (same results)
PROGRESS_LINE_S = 10.0  # not a terminal: one progress line at most this often


class Progress:
    """Progress on stderr over seeds and, within a seed, over its chunks: a line rewritten in place
    (carriage return) on a terminal, else a new line at most every ``PROGRESS_LINE_S`` seconds."""

    def __init__(self, seeds: int, tty: bool, stream=None, clock: Callable[[], float] = time.perf_counter):
        self.seeds, self.tty, self.stream, self.clock = seeds, tty, stream or sys.stderr, clock
        self.t0 = self.last = clock()
        self.done = 0

    def _show(self, text: str, force: bool = False, final: bool = False) -> None:
        now = self.clock()
        if self.tty:
            print(f"\r  {text}", end="\n" if final else "", file=self.stream, flush=True)
        elif force or now - self.last >= PROGRESS_LINE_S:
            print(f"  {text}", file=self.stream, flush=True)
            self.last = now

    def on_chunk(self, k: int, K: int) -> None:
        if k < K:
            self._show(f"seed {self.done + 1}/{self.seeds}  episode {k:,}/{K:,}  {self.clock() - self.t0:7.1f}s")

    def on_seed(self, done: int, total: int, elapsed: float) -> None:
        self.done = done
        self._show(f"seed {done}/{total} done  {elapsed:7.1f}s" + " " * 12, force=True, final=done == total)


def _cmd_run(args: argparse.Namespace) -> int:
    from privrl import io
    from privrl.rl import envs, seeding
    from privrl.results.aggregate import fit_cell
    from privrl.runs.run import run

    if args.experiment is not None or args.setting is not None:
        _pipeline_cell(args)  # --env, --agent, --param, --episodes, --seeds: the pipeline's cell
    elif args.env is None or args.agent is None:
        raise UsageError("run: give --env and --agent, or --experiment and --setting (a pipeline cell)")
    else:
        args.episodes, args.seeds = args.episodes or 10000, args.seeds or 5
        args.stream, args.n_checkpoints = ("cli", f"{args.env}/{args.agent}"), 120
        args.env_stream = None
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
    prog = Progress(args.seeds, sys.stderr.isatty()) if show else None
    chunk_s = 60.0 * args.chunk_minutes or (PROGRESS_CHUNK_S if show and not args.chunk_episodes else 0.0)
    t0, c0 = time.perf_counter(), time.process_time()
    df, info = run(args.agent, params, mdp, args.episodes, range(args.seeds), experiment=args.stream[0],
                   setting=args.stream[1], n_checkpoints=args.n_checkpoints,
                   on_seed=prog.on_seed if prog else None, on_chunk=prog.on_chunk if prog else None,
                   chunk_episodes=args.chunk_episodes, chunk_seconds=chunk_s, state_dir=args.state_dir,
                   env_stream=args.env_stream, simulation=args.simulation)
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


def _pipeline_cell(args: argparse.Namespace) -> None:
    """Fill ``args`` with the pipeline's cell ``--setting ENV/CELL`` of ``--experiment`` in the design
    ``--config`` (overlays resolved): agent, params, environment, K, seeds (unless --seeds), the
    checkpoint grid and the random stream (experiment, setting), so the run is the pipeline's, bit
    for bit (privrl.rl.seeding keys the stream by experiment, setting and seed)."""
    from privrl.design import experiments

    if args.experiment is None or args.setting is None:
        raise UsageError("--experiment and --setting go together (a pipeline cell: --setting ENV/CELL)")
    given = [f for f in ("env", "agent", "episodes") if getattr(args, f) is not None]
    given += [f for f in ("param", "env_param") if getattr(args, f)]
    if given:
        raise UsageError(f"--{given[0].replace('_', '-')}: the cell's own is used with --experiment/--setting")
    config = _read_design(args.config)
    exps = config.get("experiments") or {}
    if args.experiment not in exps:
        raise UsageError(f"--experiment: {args.experiment!r} is not in {args.config}; it has {', '.join(exps)}")
    env, _, cell = args.setting.partition("/")
    try:
        c = experiments.find_cell(config, args.experiment, env, cell)
    except KeyError:
        have = [x.setting for x in experiments.expand_cells(config, args.experiment)]
        raise UsageError(f"--setting: no cell {args.setting!r} in experiment {args.experiment!r}; "
                         f"it has {len(have)}, e.g. {', '.join(have[:3])}") from None
    name, env_params = experiments.env_spec(config, args.experiment, env)
    args.agent, args.env = c.agent, name
    args.param = [f"{k}={v!r}" for k, v in c.params.items()]
    args.env_param = [f"{k}={v}" for k, v in env_params.items()]
    args.episodes = int(exps[args.experiment]["episodes"])
    args.seeds = args.seeds or len(experiments.seeds_of(config, args.experiment))
    args.stream, args.n_checkpoints = (c.experiment, c.setting), int(config.get("n_checkpoints", 120))
    args.env_stream = env if exps[args.experiment].get("common_random_numbers") else None
    args.simulation = c.simulation


def _read_design(configfile: Path) -> dict:
    """The design ``configfile`` through the door the Snakefile uses (:func:`privrl.plan.validate.read_design`);
    a file that is no design raises a UsageError, a refused design its InvalidDesign (one line per
    problem, exit status 2)."""
    from privrl.plan import validate

    return validate.read_design(configfile, UsageError)


def _duration(s: float) -> str:
    return f"{s:.1f} s" if s < 120 else f"{s / 60:.1f} min" if s < 7200 else f"{s / 3600:.2f} h"


def _cmd_estimate(args: argparse.Namespace) -> int:
    from privrl.plan import cost
    from privrl.runs import throughput

    config = _read_design(args.configfile)
    table = throughput.load_table(args.table)
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
    runs = cost.job_seconds(costs)
    print(f"run jobs: {float(costs.est_cpu_s.sum()) / 60:.1f} CPU-min in {runs.size} jobs ({cost.JOB_OVERHEAD_S:g} s "
          f"start-up each included; longest {_duration(float(runs.max()))})")
    for label, cold in (("cold numba cache", True), ("warm cache", False)):
        jobs, parts = cost.workflow_jobs(config, costs, cold)
        cpu = cost.WORKFLOW_CPU_S + float(jobs.sum())
        wall = cost.WORKFLOW_CPU_S + cost.wall_time(jobs, args.cores)
        print(f"total, {label}: {cpu / 3600:.2f} CPU-hours ({_duration(cpu)} CPU: runs {_duration(parts['run'])}, "
              f"{jobs.size - runs.size} other jobs {_duration(parts['other'])}, numba compilation "
              f"{_duration(parts['compile'])}, Snakemake {_duration(cost.WORKFLOW_CPU_S)}); wall ~ {_duration(wall)} "
              f"on {args.cores} cores")
    from privrl.design import experiments  # cells that never leave the linear phase: the K they need

    for line in experiments.linear_phase_notes(config):
        print(f"note: {line}")
    if args.per_cell:
        cols = ["experiment", "env", "cell", "episodes", "seeds", "measured_on", "scale", "episodes_per_s", "est_cpu_s"]
        print(costs[cols].to_string(index=False, float_format=lambda x: f"{x:,.3g}"))
    if args.claims:  # each registered claim's K needed vs K run (privrl.plan.claims)
        from privrl.plan import claims as claim_plan

        print("\n".join(claim_plan.report(config, str(args.configfile))))
    return 0


def _cmd_agents(_: argparse.Namespace) -> int:
    from privrl.agents import REGISTRY

    for name, spec in sorted(REGISTRY.items()):  # what the agent is (its description; a copy says its own)
        recon = " [reconstruction]" if spec.reconstruction else ""
        print(f"{name:22s} {spec.privacy_model:5s} {dict(spec.defaults)}  -- {spec.description or spec.reference}{recon}")
    return 0


def _cmd_check_agent(args: argparse.Namespace) -> int:
    from privrl.audit import agent_check, digests

    # recording: the digests of an agent that keeps the rest of the contract (then they are its record)
    props = agent_check.check_agent(args.name, args.episodes, args.audit_n, not args.no_audit,
                                    digests=not args.record_digests)
    if args.record_digests:
        if agent_check.passed(props):
            new = digests.record([args.name])[args.name]
            props.insert(-1, agent_check.Property("digests", agent_check.OK,
                                                  f"{len(new)} digests recorded in {digests.RECORD}"))
        else:
            props.insert(-1, agent_check.Property("digests", agent_check.FAIL,
                                                  "not recorded: the agent breaks the contract above"))
    for prop in props:
        print(prop.line())
    ok = agent_check.passed(props)
    print(f"{args.name}: " + ("the agent contract holds" if ok else
                              f"FAILED ({', '.join(p.name for p in props if p.status == agent_check.FAIL)})"))
    return 0 if ok else 1


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
    r.add_argument("--env", type=_name_in(lambda: ENVS, "environment", "privrl envs"), default=None,
                   metavar="{" + ",".join(sorted(ENVS)) + "}", help="environment (see `privrl envs`)")
    r.add_argument("--agent", type=_name_in(lambda: REGISTRY, "agent", "privrl agents"), default=None,
                   metavar="{" + ",".join(sorted(REGISTRY)) + "}", help="agent (see `privrl agents`)")
    r.add_argument("--episodes", type=_positive_int, default=None,
                   help="episodes K per seed, 1e5 = 100000 (default: 10000)")
    r.add_argument("--seeds", type=_positive_int, default=None,
                   help="number of seeds 0..N-1 (default: 5); with --experiment, the experiment's")
    r.add_argument("--experiment", default=None, metavar="E",
                   help="with --setting: run a pipeline cell of the design --config, bit for bit as the pipeline "
                        "(same random streams, K, params, checkpoints)")
    r.add_argument("--setting", default=None, metavar="ENV/CELL", help="the cell's setting, e.g. riverswim/ucbvi__bonus_scale=1")
    r.add_argument("--config", "--configfile", dest="config", type=Path, default=Path("config/config.yaml"),
                   metavar="FILE", help="with --experiment: the design or overlay the cell belongs to")
    r.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="agent parameter, repeatable; defaults per agent in `privrl agents`")
    r.add_argument("--env-param", action="append", default=[], metavar="NAME=VALUE",
                   help="environment parameter, repeatable; defaults in `privrl envs`")
    r.add_argument("--out", type=Path, default=None, metavar="FILE.parquet",
                   help="write the per-seed results here and the run info to FILE.json (atomically)")
    r.add_argument("--progress", choices=("auto", "on", "off"), default="auto",
                   help="progress on stderr, per seed and within a seed (~2 s chunks: the same results); "
                        "auto = when stderr is a terminal")
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
                                   "measured agent throughput (privrl.plan.cost).", formatter_class=fmt)
    e.add_argument("--configfile", type=Path, default=Path("config/config.yaml"), help="design or overlay")
    e.add_argument("--cores", type=_positive_int, default=os.cpu_count() or 1, help="cores for the wall time")
    e.add_argument("--table", type=Path, default=Path(__file__).parent.parent / "throughput.csv", help="measured throughput (bench/agent_throughput.py)")
    e.add_argument("--per-cell", action="store_true", help="also print every cell's estimate")
    e.add_argument("--claims", action="store_true", help="also plan its claims: K needed vs K run (privrl.plan.claims)")
    e.set_defaults(fn=_cmd_estimate)
    sub.add_parser("agents", help="list registered agents").set_defaults(fn=_cmd_agents)
    sub.add_parser("envs", help="list registered environments").set_defaults(fn=_cmd_envs)
    c = sub.add_parser("check-agent", help="check one agent against the agent contract (one line per property)",
                       description="Check a registered agent: same seed twice = same bytes, chunked = unchunked "
                                   "(resumable path), noise only through the privatizer door, end-to-end audit at "
                                   "its claimed eps, its recorded output digests, a throughput row (privrl.audit.agent_check). Exit 1 on a failure.",
                       formatter_class=fmt)
    c.add_argument("name", help="agent (see `privrl agents`)")
    c.add_argument("--episodes", type=_positive_int, default=300, help="episodes K of the determinism and chunk runs")
    c.add_argument("--audit-n", type=_positive_int, default=4000, help="audit runs per neighbouring user sequence")
    c.add_argument("--no-audit", action="store_true", help="skip the end-to-end privacy audit (the slow part)")
    c.add_argument("--record-digests", action="store_true",
                   help="record the agent's per-seed output digests first (privrl.audit.digests; a new agent, or a "
                        "deliberate change of a random stream)")
    c.set_defaults(fn=_cmd_check_agent)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args)
    except ValueError as exc:  # UsageError, and the library's own checks (an env or agent refusing a value)
        # a refused design: one line per problem (privrl.plan.validate.InvalidDesign), as the Snakefile prints them
        for line in getattr(exc, "problems", None) or [str(exc).splitlines()[0] if str(exc) else type(exc).__name__]:
            print(f"privrl {args.cmd}: error: {line}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
