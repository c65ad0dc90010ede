"""``python -m dsh_session`` runs the command line."""

from dsh_session.cli import main

main()
