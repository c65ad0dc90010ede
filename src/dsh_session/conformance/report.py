"""The text report of a run: what did not pass, then the summary per profile and per area."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from dsh_session.conformance.runner import OUTCOMES, Report

_STYLE = {
    "pass": "green",
    "fail": "red",
    "error": "red",
    "unsupported": "yellow",
    "skip": "cyan",
    "fixed": "magenta",
}


def print_report(report: Report, *, verbose: bool = False, console: Console | None = None) -> None:
    out = console or Console(highlight=False)
    implementation = report.implementation
    name = implementation.get("name", "?")
    out.print(
        f"[bold]conformance suite {report.suite_version}[/bold] against {name} "
        f"{implementation.get('version', '')} ({implementation.get('language', '?')}), "
        f"claimed profile [bold]{report.profile}[/bold]"
    )
    for outcome in report.outcomes:
        if outcome.status == "pass" and not verbose:
            continue
        style = _STYLE.get(outcome.status, "")
        out.print(f"[{style}]{outcome.status.upper():<11}[/{style}] {outcome.id}")
        if outcome.message:
            out.print(f"            {outcome.message}", markup=False)
        if outcome.reason:
            out.print(f"            skipped because: {outcome.reason}", markup=False)
    for pattern in report.unused_skips:
        out.print(f"[yellow]the skip file lists {pattern!r}, which matches no case that ran[/yellow]")
    for title, groups in (("profile", report.by(lambda o: o.profile)), ("area", report.by(lambda o: o.area))):
        table = Table(title=f"by {title}")
        table.add_column(title)
        for status in OUTCOMES:
            table.add_column(status, justify="right")
        for group, counts in groups.items():
            table.add_row(group, *(str(counts[status]) if counts[status] else "" for status in OUTCOMES))
        out.print(table)
    totals = report.counts()
    summary = ", ".join(f"{count} {status}" for status, count in totals.items() if count)
    verdict = "[green]PASSED[/green]" if report.passed else "[red]FAILED[/red]"
    out.print(f"{verdict} {len(report.outcomes)} cases: {summary} ({report.seconds:.1f} s)")
