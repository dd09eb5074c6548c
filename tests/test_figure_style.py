"""The paper figure style (privrl.results.style) and the regret figure drawn with it: <= 8 lines a
panel, >= 8 pt text, legends outside the data, PDF + 300 dpi PNG, human labels, symlog-safe axes."""
import numpy as np
import pandas as pd
import pytest
from PIL import Image

from privrl.results import figures, style


def _synthetic(agents=("pucb", "private-ucbvi-jdp"), eps=(0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50), K=1000):
    """(agg, fits) of agents x eps cells plus each agent's noise-off twin and one non-private cell."""
    k = np.unique(np.geomspace(1, K, 40).astype(int)).astype(float)
    agg, fits = [], []

    def add(cell, agent, params, slope):
        y = 3 * k ** slope
        agg.append(pd.DataFrame({"cell": cell, "label": cell, "agent": agent, "episode": k, "mean": y,
                                 "ci_low": y * 0.8, "ci_high": y * 1.2}))
        fits.append({"cell": cell, "agent": agent, "exponent": slope, "log_intercept": np.log(3.0),
                     "window_lo": 10.0, "window_hi": float(K), "reconstruction": "ucbvi" in agent,
                     **{f"param_{n}": v for n, v in params.items()}})

    for a in agents:
        for e in eps:
            add(f"{a}__epsilon={e:g}", a, {"epsilon": float(e), "noise": 1.0, "bonus_scale": 1.0}, 0.5 + 0.3 / e)
        add(f"{a}__epsilon=1__noise=0", a, {"epsilon": 1.0, "noise": 0.0, "bonus_scale": 1.0}, 0.5)
    add("ucbvi", "ucbvi", {"bonus_scale": 1.0}, 0.5)
    return pd.concat(agg, ignore_index=True), pd.DataFrame(fits)


def _overlaps(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


@pytest.mark.parametrize("view", ["regret", "rate"])
def test_regret_figure_is_paper_ready(tmp_path, view, monkeypatch):
    agg, fits = _synthetic()
    drawn = {}
    monkeypatch.setattr(style, "save_figure", lambda fig, stem, **kw: drawn.update(fig=fig))
    figures.regret_vs_k(agg, fits, tmp_path / "f", title="exp: env", view=view)
    fig = drawn["fig"]
    assert style.lines_per_panel(fig) <= style.MAX_LINES
    assert style.min_font_size(fig) >= style.MIN_FONT
    renderer = fig.canvas.get_renderer()
    (legend,) = fig.legends
    box = legend.get_window_extent(renderer)
    assert not any(_overlaps(box, ax.get_window_extent(renderer)) for ax in fig.axes)
    texts = [t.get_text() for t in legend.get_texts()]
    assert "ε=0.1" in texts and "noise off" in texts and not any("__" in t for t in texts)
    titles = [ax.get_title() for ax in fig.axes]
    assert any(t.startswith("PUCB") for t in titles) and any("(recon.)" in t for t in titles)


def test_save_figure_writes_vector_pdf_and_300_dpi_png(tmp_path):
    fig, (ax,) = style.panels(1, width="column")
    ax.plot([1, 2], [1, 2], label="a")
    style.legend_outside(ax)
    pdf, png = style.save_figure(fig, tmp_path / "x.png")
    assert pdf.read_bytes().startswith(b"%PDF") and png.exists()
    with Image.open(png) as im:
        assert round(im.info["dpi"][0]) == style.PNG_DPI
        assert im.size[0] == pytest.approx(style.COLUMN_WIDTH * style.PNG_DPI, rel=0.01)
    assert not list(tmp_path.glob(".*"))  # no temporary file left


def test_saved_figure_bytes_do_not_depend_on_when_it_was_drawn(tmp_path, monkeypatch):
    """No timestamp in the PDF or PNG: a rerun (or another node) writes the same bytes."""
    out = []
    for run, when in enumerate((0, 10**9)):
        monkeypatch.setenv("SOURCE_DATE_EPOCH", str(when)) if when else monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
        fig, (ax,) = style.panels(1, width="column")
        ax.plot([1, 2], [1, 3], label="a")
        style.legend_outside(ax)
        out.append(style.save_figure(fig, tmp_path / f"run{run}" / "x"))
    for a, b in zip(*out):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_log_axis_uses_symlog_for_zero_or_negative_values():
    fig, (a, b) = style.panels(2, sharey=False)
    assert style.log_axis(a, [0.1, 1, 10]) == "log"
    assert style.log_axis(b, [-3.0, 0.0, 0.5, 100]) == "symlog" and b.get_yscale() == "symlog"


def test_grid_by_splits_groups_into_panels_of_at_most_max_lines():
    curves = pd.DataFrame({"agent": ["a"] * 11 + ["b"] * 3, "epsilon": list(range(11, 0, -1)) + [1, 2, 3]})
    panels = style.grid_by(curves, ["agent"], max_lines=8, order="epsilon", title=lambda k: k["agent"])
    assert [(p.title, len(p.rows)) for p in panels] == [("a (1/2)", 8), ("a (2/2)", 3), ("b", 3)]
    assert list(panels[0].rows.epsilon) == sorted(panels[0].rows.epsilon)


def test_human_labels():
    assert style.agent_name("private-ucbvi-jdp", reconstruction=True) == "Private-UCBVI-JDP (recon.)"
    assert style.agent_name("shuffled-obi+fixed") == "Shuffled-OBI (fixed)"
    params = {"epsilon": 10.0, "bonus_scale": 0.1, "noise": 1.0}
    assert style.cell_label("pucb", params, vary=["epsilon"]) == "PUCB, ε=10"
    assert style.cell_label(None, {**params, "noise": 0.0}, vary=["epsilon", "noise"]) == "noise off"
    assert style.cell_label("ucbvi", {"bonus_scale": 0.003}) == "UCBVI, bonus ×0.003"


def test_eps_colours_are_one_log_scale():
    c = style.eps_colors([0.1, 1, 10, 1.0])
    assert len(c) == 3 and c[0.1] != c[10.0]


def test_theorem_check_figures_are_readable_in_a_column(tmp_path):
    """Every theorem check's figure (tiny sizes): 3.3 in wide, >= 6 pt once printed in a column,
    <= 8 lines a panel, legends off the panels, PDF + PNG (privrl.results.figure_check)."""
    from privrl.papers import registry
    from privrl.results import figure_check

    tiny = {"binary_mechanism": {"T_grid": [64, 256], "n_trials": 20},
            "garcelon_prop5": {"k_grid": [100, 1000], "eps0_grid": [1.0, 2.0]},
            "bitsum_lemma42": {"eps_grid": [0.2, 0.9], "n_trials": 200},
            "lu_cor14": {"grid": [{"K": 1000, "H": 5, "S": 5, "A": 2}], "deltas": [1e-3, 1e-6], "from_experiments": False}}
    checks = registry.theorem_checks()
    for name, sizes in tiny.items():
        c = checks[name]
        c.figure(c.run(np.random.default_rng(0), **c.arguments(sizes, {"experiments": {}})), tmp_path / f"{name}.png")
    assert len(list(tmp_path.glob("*.png"))) == len(tiny)
    assert figure_check.figure_problems(tmp_path) == []


def test_figure_check_flags_a_wide_figure_and_a_legend_over_data(tmp_path):
    import matplotlib.pyplot as plt

    from privrl.results import figure_check

    style.use_paper_style()
    fig, ax = plt.subplots(figsize=(10, 3))
    for i in range(9):
        ax.plot([1, 2], [i, i + 1], label=f"line {i}")
    ax.legend(loc="center")
    style.save_figure(fig, tmp_path / "wide")
    problems = figure_check.figure_problems(tmp_path)
    assert len(problems) == 3 and "prints at 2.64 pt" in problems[0]
    assert "9 lines" in problems[1] and "legend overlaps" in problems[2]


def test_a_closed_figure_still_saves_with_its_readability_record(tmp_path):
    import matplotlib.pyplot as plt

    from privrl.results import figure_check

    fig, (ax,) = style.panels(1, width="column")
    ax.plot([1, 2], [1, 2])
    plt.close(fig)
    style.save_figure(fig, tmp_path / "closed")
    assert figure_check.record(tmp_path / "closed.png")["width_in"] == style.COLUMN_WIDTH
