"""With CALLFIX_REQUIRE_ALL=1 (set by .ci/run, which installs every optional
dependency: Ray, numpy, the MCP test server), a skipped test is a failure: a
test that cannot run there has lost its dependency, not passed.

One copy for every Python suite: each suite's conftest.py imports the two
hooks below (python/tests/conftest.py, tests/mcp/conftest.py), so each suite
still runs on its own."""

import os

import pytest

REQUIRE_ALL = os.environ.get("CALLFIX_REQUIRE_ALL") == "1"


def _fail_a_skip(report):
    if REQUIRE_ALL and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = "skipped, and CALLFIX_REQUIRE_ALL=1 makes a skip a failure: %s" % (reason,)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_a_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_a_skip(outcome.get_result())
