"""tests/compile_log.py, the suite's time report: it sums a hand-written log as it says."""

from __future__ import annotations

import compile_log


def test_report_sums_compiles_eager_operations_and_each_tests_other_time(tmp_path):
    t = "tests/unit/test_x.py::test_a"
    lines = [f"1.0\t{t}\tFinished tracing play for jit in 1.5 sec",
             f"1.0\t{t}\tFinished jaxpr to MLIR module conversion jit(play) in 0.5 sec",
             f"1.0\t{t}\tFinished XLA compilation of jit(play) in 3.0 sec",
             f"1.0\t{t}\tTest finished in 9.000 sec, cpu 8.000 sec"]
    # an eager operation (20 quick compiles, all missed) and a program that shares a name
    # (20 compiles of 2 s each): only the first counts as eager
    for name, seconds in (("add", 0.05), ("call", 2.0)):
        for _ in range(20):
            lines += [f"2.0\ttests/unit/test_x.py::test_b\tPERSISTENT COMPILATION CACHE MISS for "
                      f"'jit_{name}' with key 'k'",
                      f"2.0\ttests/unit/test_x.py::test_b\tFinished XLA compilation of jit({name}) "
                      f"in {seconds} sec"]
    lines.append("3.0\ttests/unit/test_x.py::test_b\tTest finished in 50.000 sec, cpu 49.000 sec")
    (tmp_path / "gw0.log").write_text("\n".join(lines) + "\n")
    report = compile_log.report(str(tmp_path))
    assert report.startswith("compile seconds: 46 (XLA 44, lowering 0, tracing 2); "
                             "eager operations 1 s in 20 compiles")
    assert "      40.0    20    20  call" in report and "  add" not in report.split("by test")[0]
    assert "tests: 2 in 59 s of worker wall time (CPU 57 s), 13 s of it not compiling" in report
    assert "      9.0     5.0     4.0  tests/unit/test_x.py::test_a" in report
    assert "     50.0    41.0     9.0  tests/unit/test_x.py::test_b" in report
