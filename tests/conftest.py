"""Test configuration: beartype guards the implementation's public API at run time."""

from beartype.claw import beartype_package

beartype_package("dsh_session")
