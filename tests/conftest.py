"""Test configuration: beartype guards the implementation's public API at run time, a
throwaway PostgreSQL server (``tests/pg_server.py``) serves the tests that need one, and no
property test fails on wall-clock time (Hypothesis's per-example deadline is off: a slow
example on a loaded machine is not a bug)."""

from collections.abc import Iterator

import pytest
from beartype.claw import beartype_package
from hypothesis import settings

settings.register_profile("dsh", deadline=None)
settings.load_profile("dsh")

beartype_package("dsh_session")

from tests import pg_server  # noqa: E402


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[pg_server.PgServer]:
    """The run's PostgreSQL server, started on first use (also by ``tests.backends``); a server
    that cannot be started fails the test with the reason -- never a skip."""
    yield pg_server.shared()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    pg_server.stop_shared()
