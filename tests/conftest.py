"""Test configuration: beartype guards the implementation's public API at run time, and a
throwaway PostgreSQL server (``tests/pg_server.py``) serves the tests that need one."""

from collections.abc import Iterator

import pytest
from beartype.claw import beartype_package

beartype_package("dsh_session")

from tests import pg_server  # noqa: E402


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[pg_server.PgServer]:
    """The run's PostgreSQL server, started on first use (also by ``tests.backends``); a server
    that cannot be started fails the test with the reason -- never a skip."""
    yield pg_server.shared()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    pg_server.stop_shared()
