# Mechanism-level theorem checks and the privacy audit table (issue 3).
# Sizes come from config["mechanisms"] (tiny in config/smoke.yaml, paper scale in
# config/config.yaml); every output lands under {figures_dir}/mechanisms/.
# The five checks share one job: at smoke size a job is mostly interpreter start-up and
# imports, and at paper scale all five together take well under a minute.

MECH = config.get("mechanisms", {}) or {}
MF = f"{F}/mechanisms"
MECHANISM_CHECKS = ["binary_mechanism", "garcelon_coverage", "bitsum_lemma42", "garcelon_prop5", "lu_cor14"]

MECHANISM_TARGETS = (
    [f"{MF}/{c}.{x}" for c in MECHANISM_CHECKS for x in ("csv", "png")]
    + [f"{MF}/privacy_audit.csv", f"{MF}/privacy_audit.md", f"{MF}/mechanism_claims.md"]
)


rule mechanism_checks:
    """The theorem checks of privrl.mechanism_checks: one table and one figure per check."""
    output:
        **{f"{c}_csv": f"{MF}/{c}.csv" for c in MECHANISM_CHECKS},
        **{f"{c}_png": f"{MF}/{c}.png" for c in MECHANISM_CHECKS},
    log:
        f"{R}/logs/mechanisms/checks.log",
    benchmark:
        f"{R}/benchmarks/mechanisms/checks.tsv"
    params:
        code=ALL_CODE,  # rerun when the library code it runs changes
        checks=MECHANISM_CHECKS,
        sizes={c: MECH.get(c, {}) or {} for c in MECHANISM_CHECKS},
        seed=MECH.get("seed", 0),
    conda:
        CONDA_ENV
    script:
        "../scripts/mechanism_checks.py"


rule privacy_audit:
    """Empirical epsilon lower bounds, distribution tests and exact epsilons of every mechanism."""
    output:
        csv=f"{MF}/privacy_audit.csv",
        md=f"{MF}/privacy_audit.md",
    log:
        f"{R}/logs/mechanisms/privacy_audit.log",
    benchmark:
        f"{R}/benchmarks/mechanisms/privacy_audit.tsv"
    params:
        code=ALL_CODE,  # rerun when the library code it runs changes
        sizes=MECH.get("audit", {}) or {},
        seed=MECH.get("seed", 0),
    conda:
        CONDA_ENV
    script:
        "../scripts/mechanism_audit.py"


rule mechanism_claims:
    """Verdicts of the mechanism checks and the audit, as a section of CLAIMS.md."""
    input:
        checks=[f"{MF}/{c}.csv" for c in MECHANISM_CHECKS],
        audit=f"{MF}/privacy_audit.csv",
    output:
        md=f"{MF}/mechanism_claims.md",
    log:
        f"{R}/logs/mechanisms/mechanism_claims.log",
    benchmark:
        f"{R}/benchmarks/mechanisms/mechanism_claims.tsv"
    params:
        code=ALL_CODE,  # rerun when the library code it runs changes
        names=MECHANISM_CHECKS,
    conda:
        CONDA_ENV
    script:
        "../scripts/mechanism_claims.py"
