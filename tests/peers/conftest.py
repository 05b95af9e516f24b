"""Peer tests: quiver against Polars, Lance (pylance) and the reference
translator (polars-pylance), on generated expressions (exprgen.py).

Every peer is imported here; one that cannot be imported skips the whole
directory loudly with the reason.  The expensive part (every expression
through every engine) runs once per session: the `peers` fixture.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

_missing = []
for _name in ("pyarrow", "polars", "lance", "polars_pylance"):
    try:
        __import__(_name)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        _missing.append("%s (%s)" % (_name, exc))


def pytest_collection_modifyitems(config, items):
    reason = None
    if _missing:
        reason = ("!!! peer packages cannot be imported: %s. The peer tests are SKIPPED. "
                  "Run `make pyenv` and use .venv/bin/python -m pytest. !!!" % ", ".join(_missing))
    else:
        import quiver_driver

        why = quiver_driver.available()
        if why:
            reason = "!!! %s: the peer tests are SKIPPED !!!" % why
    if reason:
        for item in items:
            if "tests/peers" in str(item.fspath):
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def peers(tmp_path_factory):
    import peer_run

    world, results = peer_run.run_all(str(tmp_path_factory.mktemp("peers")))
    return world, results


# Lines the peer tests want shown even when they pass (the not-yet-evaluable
# operators, the known gaps, the reference differences): pytest -q hides a
# passing test's output, so they are printed in the terminal summary.
SUMMARY = []


def pytest_terminal_summary(terminalreporter):
    if SUMMARY:
        terminalreporter.section("quiver peer summary")
        for line in SUMMARY:
            terminalreporter.write_line(line)
