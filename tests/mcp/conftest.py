"""CALLFIX_REQUIRE_ALL=1 (.ci/run) makes a skipped test a failure: the hooks
are shared with the other Python suites (tests/pytest_require_all.py)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from pytest_require_all import pytest_make_collect_report, pytest_runtest_makereport  # noqa: E402,F401
