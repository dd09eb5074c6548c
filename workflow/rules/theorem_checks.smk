# The papers' theorem checks on the mechanisms alone (privrl.papers.registry), the privacy audit
# of every mechanism and the end-to-end audit of the private agents: each only where the design
# names it (config["mechanisms"]: checks / audit / agent_audit, at the sizes it sets -- tiny in
# config/smoke.yaml, paper scale in config/config.yaml; the agent audit covers the private agents
# the design runs unless it lists them). The checks share one job: at smoke size a job is mostly
# interpreter start-up and imports, and at paper scale all of them together take well under a minute.


def check_caption(check):
    """The check's own caption file, or the generic one for a check without it."""
    own = Path(workflow.basedir, "workflow", "report", "checks", f"{check}.rst")
    return f"../report/checks/{check}.rst" if own.exists() else "../report/theorem_check.rst"


if THEOREM_CHECKS:

    rule theorem_checks:
        """Every registered theorem check: one table and one figure per check."""
        output:
            **{f"{c}_csv": check_path(c, "csv") for c in THEOREM_CHECKS},
            # each check's caption says what its figure plots (workflow/report/checks/<check>.rst)
            **{f"{c}_png": report(check_path(c, "png"), caption=check_caption(c),
                                  category=PAPER_NAMES[CHECK_PAPER[c]], subcategory="theorem checks",
                                  labels={"check": c})
               for c in THEOREM_CHECKS},
            **{f"{c}_pdf": check_path(c, "pdf") for c in THEOREM_CHECKS},
        log:
            f"{R}/logs/mechanisms/checks.log",
        benchmark:
            f"{R}/benchmarks/mechanisms/checks.tsv"
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
        output:
            csv=report(f"{F}/{CROSS}/mechanisms/privacy_audit.csv", caption="../report/privacy_audit.rst",
                       category="Mechanisms (all papers)", labels={"table": "privacy audit"}),
            md=f"{F}/{CROSS}/mechanisms/privacy_audit.md",
        log:
            f"{R}/logs/mechanisms/privacy_audit.log",
        benchmark:
            f"{R}/benchmarks/mechanisms/privacy_audit.tsv"
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
        output:
            csv=f"{F}/{CROSS}/mechanisms/agent_audit.csv",
            md=f"{F}/{CROSS}/mechanisms/agent_audit.md",
        log:
            f"{R}/logs/mechanisms/agent_audit.log",
        benchmark:
            f"{R}/benchmarks/mechanisms/agent_audit.tsv"
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
