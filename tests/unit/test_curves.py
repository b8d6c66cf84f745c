"""``cardjax.train.metrics.plot_curves``: what a reader of curves.png is shown."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.figure  # noqa: E402

from cardjax.train import metrics  # noqa: E402


def _drawn(monkeypatch, tmp_path, records, evals, **kw):
    figs = []
    real = matplotlib.figure.Figure.savefig
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig",
                        lambda self, path, **k: (figs.append(self), real(self, path, **k)))
    path = tmp_path / "curves.png"
    metrics.plot_curves(records, evals, str(path), **kw)
    assert path.stat().st_size > 0
    (fig,) = figs
    return fig


def test_value_error_is_shown_against_the_targets_and_eval_names_opponent(monkeypatch, tmp_path):
    records = [{"iteration": i, "loss": 0.1 + 0.01 * i, "policy_kl": 0.01, "value_l1": 5.0 + i,
                "value_target_abs": 10.0 * i, "positions_per_s": 1e5} for i in range(1, 6)]
    evals = [{"iteration": 5, "elapsed_s": 120.0, "mean": 12.0, "stderr": 3.0}]
    fig = _drawn(monkeypatch, tmp_path, records, evals, eval_name="WPG vs two Mr Greeds")
    titles = [a.get_title() for a in fig.axes]
    assert "evaluation (WPG vs two Mr Greeds) vs minutes of training" in titles
    value = next(a for a in fig.axes if a.get_title().startswith("value error"))
    assert [ln.get_label() for ln in value.get_lines()] == ["mean |error|", "mean |target|"]
    ratio = next(a for a in fig.axes if a.get_ylabel() == "|error| / |target|")
    ys = ratio.get_lines()[0].get_ydata()
    assert ys[0] == 6.0 / 10.0 and ys[-1] == 10.0 / 50.0  # falls while the loss rises


def test_dmc_records_show_the_targets_size(monkeypatch, tmp_path):
    records = [{"iteration": i, "loss": 1.0, "target_abs": 0.5, "frames_per_s": 10.0}
               for i in range(1, 4)]
    fig = _drawn(monkeypatch, tmp_path, records, [], rate_name="frames_per_s")
    assert "mean |target|" in [a.get_title() for a in fig.axes]
    assert not any(a.get_ylabel() == "|error| / |target|" for a in fig.axes)
