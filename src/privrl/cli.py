"""``privrl`` command: ad-hoc runs outside Snakemake.

    privrl run --env riverswim --agent ucbvi --episodes 20000 --seeds 5 --param bonus_scale=0.003
    privrl agents      # the agent registry
    privrl envs        # the environment registry
"""
from __future__ import annotations

import argparse
import sys
import time



def _kv(items: list[str]) -> dict[str, float | int | str]:
    out: dict[str, float | int | str] = {}
    for item in items:
        if "=" not in item:
            raise SystemExit(f"expected NAME=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        for cast in (int, float):
            try:
                out[k] = cast(v)
                break
            except ValueError:
                continue
        else:
            out[k] = v
    return out


def _cmd_run(args: argparse.Namespace) -> int:
    from privrl.rl import envs, seeding
    from privrl.results.aggregate import fit_cell
    from privrl.run import run

    mdp = envs.make(args.env, **_kv(args.env_param))
    params = _kv(args.param)
    t0 = time.perf_counter()
    df, info = run(args.agent, params, mdp, args.episodes, range(args.seeds), experiment="cli",
                   setting=f"{args.env}/{args.agent}")
    wall = time.perf_counter() - t0
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
          f"numba compile included on a cold cache)")
    return 0


def _cmd_agents(_: argparse.Namespace) -> int:
    from privrl.agents import REGISTRY

    for name, spec in sorted(REGISTRY.items()):
        recon = " [reconstruction]" if spec.reconstruction else ""
        print(f"{name:22s} {spec.privacy_model:5s} {dict(spec.defaults)}  -- {spec.reference}{recon}")
    return 0


def _cmd_envs(_: argparse.Namespace) -> int:
    import inspect

    from privrl.rl.envs import ENVS

    for name, fn in ENVS.items():
        print(f"{name:15s} {inspect.signature(fn)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="privrl", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run one agent on one environment over seeds and print a summary")
    r.add_argument("--env", required=True)
    r.add_argument("--agent", required=True)
    r.add_argument("--episodes", type=int, default=10000)
    r.add_argument("--seeds", type=int, default=5)
    r.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="agent parameter")
    r.add_argument("--env-param", action="append", default=[], metavar="NAME=VALUE", help="environment parameter")
    r.set_defaults(fn=_cmd_run)
    sub.add_parser("agents", help="list registered agents").set_defaults(fn=_cmd_agents)
    sub.add_parser("envs", help="list registered environments").set_defaults(fn=_cmd_envs)
    args = p.parse_args(argv)
    try:
        return args.fn(args)
    except ValueError as exc:
        print(f"privrl: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
