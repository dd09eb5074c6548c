# The papers' theorem checks on the mechanisms alone (privrl.papers.registry), the privacy audit
# of every mechanism and the end-to-end audit of the private agents: each only where the design
# names it (config["mechanisms"]: checks / audit / agent_audit, at the sizes it sets -- tiny in
# config/smoke.yaml, paper scale in config/config.yaml; the agent audit covers the private agents
# the design runs unless it lists them). The checks share one job: at smoke size a job is mostly
# interpreter start-up and imports, and at paper scale all of them together take well under a minute.
#
# Their outputs are committed (paper_figures/*/mechanisms/) and they read no file, so each job has
# one input, a provenance stamp written here at parse time (privrl.runs.provenance): its code
# digest and params digest; dated before the outputs when the committed sidecar
# ({F}/provenance/<rule>.json, an output of the job) records the same provenance and the outputs'
# bytes, else now: on a clean clone too, a job reruns exactly when its code, parameters or outputs
# changed, and a matching committed output is verified, not rerun.
import sys

from privrl.runs import provenance as privrl_provenance


# rule -> (provenance, outputs but the sidecar): the jobs whose outputs carry a provenance sidecar
PROVENANCE = {}


def provenance_of(rule, script, params, outputs):
    """Register a rule's provenance (code digest of its script's closure, params digest) and return
    its stamp (the input the rule's job reads)."""
    sidecar = privrl_provenance.sidecar_path(F, rule)
    PROVENANCE[rule] = (privrl_provenance.provenance(rule, code_of(script), params), list(outputs), sidecar)
    return privrl_provenance.stamp_path(sidecar)


def benchmark_of(name):
    """A mechanism job's benchmark file (Snakemake dates it with the outputs: the stamp is dated before it too)."""
    return f"{R}/benchmarks/mechanisms/{name}.tsv"


def check_caption(check):
    """The check's own caption file, or the generic one for a check without it."""
    own = Path(workflow.basedir, "workflow", "report", "checks", f"{check}.rst")
    return f"../report/checks/{check}.rst" if own.exists() else "../report/theorem_check.rst"


if THEOREM_CHECKS:

    rule theorem_checks:
        """Every registered theorem check: one table and one figure per check."""
        input:
            stamp=provenance_of("theorem_checks", "theorem_checks.py",
                                {"arguments": theorem_check_arguments(), "seed": MECHANISMS.get("seed", 0)},
                                [check_path(c, x) for c in THEOREM_CHECKS for x in ("csv", "png", "pdf")]),
        output:
            **{f"{c}_csv": check_path(c, "csv") for c in THEOREM_CHECKS},
            # each check's caption says what its figure plots (workflow/report/checks/<check>.rst)
            **{f"{c}_png": report(check_path(c, "png"), caption=check_caption(c),
                                  category=PAPER_NAMES[CHECK_PAPER[c]], subcategory="theorem checks",
                                  labels={"check": c})
               for c in THEOREM_CHECKS},
            **{f"{c}_pdf": check_path(c, "pdf") for c in THEOREM_CHECKS},
            provenance=privrl_provenance.sidecar_path(F, "theorem_checks"),  # code, params, outputs' sha256
        log:
            f"{R}/logs/mechanisms/checks.log",
        benchmark:
            benchmark_of("checks")
        params:
            code=code_of("theorem_checks.py"),  # rerun when the library code or its script changes
            arguments=readable(theorem_check_arguments()),  # each check's run() arguments (its sizes, config-derived grids)
            seed=MECHANISMS.get("seed", 0),
        priority: 10  # the longest jobs, ready at start: begun first, beside the runs
        conda:
            CONDA_ENV
        script:
            "../scripts/theorem_checks.py"


if PLAN.mechanism_audit:

    rule privacy_audit:
        """Empirical epsilon lower bounds, distribution tests and exact epsilons of every mechanism."""
        input:
            stamp=provenance_of("privacy_audit", "mechanism_audit.py",
                                {"sizes": stable(MECHANISMS.get("audit", {}) or {}), "seed": MECHANISMS.get("seed", 0)},
                                [f"{F}/{CROSS}/mechanisms/privacy_audit.csv", f"{F}/{CROSS}/mechanisms/privacy_audit.md"]),
        output:
            csv=report(f"{F}/{CROSS}/mechanisms/privacy_audit.csv", caption="../report/privacy_audit.rst",
                       category="Mechanisms (all papers)", labels={"table": "privacy audit"}),
            md=f"{F}/{CROSS}/mechanisms/privacy_audit.md",
            provenance=privrl_provenance.sidecar_path(F, "privacy_audit"),
        log:
            f"{R}/logs/mechanisms/privacy_audit.log",
        benchmark:
            benchmark_of("privacy_audit")
        params:
            code=code_of("mechanism_audit.py"),  # rerun when the library code or its script changes
            sizes=readable(stable(MECHANISMS.get("audit", {}) or {})),
            seed=MECHANISMS.get("seed", 0),
        priority: 10  # the longest jobs, ready at start: begun first, beside the runs
        conda:
            CONDA_ENV
        script:
            "../scripts/mechanism_audit.py"


if PLAN.audited_agents:

    rule agent_audit:
        """End-to-end privacy audit of every private agent's kernel on a tiny MDP (privrl.audit.privacy)."""
        input:
            stamp=provenance_of("agent_audit", "mechanism_audit.py",
                                {"sizes": PLAN.agent_audit_sizes(), "seed": MECHANISMS.get("seed", 0)},
                                [f"{F}/{CROSS}/mechanisms/agent_audit.csv", f"{F}/{CROSS}/mechanisms/agent_audit.md"]),
        output:
            csv=f"{F}/{CROSS}/mechanisms/agent_audit.csv",
            md=f"{F}/{CROSS}/mechanisms/agent_audit.md",
            provenance=privrl_provenance.sidecar_path(F, "agent_audit"),
        log:
            f"{R}/logs/mechanisms/agent_audit.log",
        benchmark:
            benchmark_of("agent_audit")
        params:
            code=code_of("mechanism_audit.py"),  # its closure holds every probed agent (privrl.audit.probe)
            sizes=PLAN.agent_audit_sizes(),  # its agents resolved: those the design names, or runs
            seed=MECHANISMS.get("seed", 0),
        priority: 10  # the longest jobs, ready at start: begun first, beside the runs
        conda:
            CONDA_ENV
        script:
            "../scripts/mechanism_audit.py"


rule privacy_manifest:
    """Every cell's recorded guarantees (model, relation, eps, delta, amplified) in one table."""
    input:
        infos=[rules.run_cell.output.info.format(experiment=c.experiment, env=c.env, cell=c.cell) for c in CELLS],
    output:
        csv=report(f"{R}/privacy_manifest.csv", caption="../report/privacy_manifest.rst",
                   category="Mechanisms (all papers)", labels={"table": "privacy manifest"}),
    log:
        f"{R}/logs/privacy_manifest.log",
    params:
        code=code_of("privacy_manifest.py"),
    localrule: True
    conda:
        CONDA_ENV
    script:
        "../scripts/privacy_manifest.py"


if PLAN.mechanism_claims:

    rule theorem_claims:
        """Verdicts of the theorem checks and the audit, as the mechanism-level section of CLAIMS.md."""
        input:
            checks=[check_path(c, "csv") for c in THEOREM_CHECKS],
            audit=[rules.privacy_audit.output.csv] if PLAN.mechanism_audit else [],
            agent_audit=[rules.agent_audit.output.csv] if PLAN.audited_agents else [],
        output:
            csv=f"{R}/mechanisms/mechanism_claims.csv",
        log:
            f"{R}/logs/mechanisms/mechanism_claims.log",
        benchmark:
            f"{R}/benchmarks/mechanisms/mechanism_claims.tsv"
        params:
            code=code_of("theorem_claims.py"),  # rerun when the library code or its script changes
            checks=THEOREM_CHECKS,
            artifacts={**{c: check_path(c, "png") for c in THEOREM_CHECKS},  # what each claim row cites
                       **({"privacy_audit": f"{F}/{CROSS}/mechanisms/privacy_audit.md"} if PLAN.mechanism_audit else {}),
                       **({"agent_audit": f"{F}/{CROSS}/mechanisms/agent_audit.md"} if PLAN.audited_agents else {})},
        localrule: True
        conda:
            CONDA_ENV
        script:
            "../scripts/theorem_claims.py"


# The stamps, in the main process only (a job's own process finds them written): dated before the
# outputs when the sidecar vouches for them, else now (privrl.runs.provenance.stamp).
if workflow.is_main_process:
    for _rule, (_prov, _outputs, _sidecar) in PROVENANCE.items():
        _why = privrl_provenance.stamp(_sidecar, _prov, _outputs,
                                       benchmark_of({"theorem_checks": "checks"}.get(_rule, _rule)))
        if _why is not None:
            print(f"privrl: {_rule}: {_why}: it will be rerun", file=sys.stderr)
