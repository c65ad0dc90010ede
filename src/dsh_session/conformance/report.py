"""The text report of a run: what did not pass, then the summary per profile and per area."""

from __future__ import annotations

import re

from rich.console import Console
from rich.table import Table

from dsh_session.conformance.runner import NOT_APPLICABLE, OUTCOMES, Outcome, Report

_STYLE = {
    "pass": "green",
    "fail": "red",
    "error": "red",
    "unsupported": "yellow",
    "skip": "cyan",
    "fixed": "magenta",
    "not-applicable": "dim",
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
        if outcome.status in ("pass", NOT_APPLICABLE) and not verbose:
            continue
        style = _STYLE.get(outcome.status, "")
        out.print(f"[{style}]{outcome.status.upper():<11}[/{style}] {outcome.id}")
        if outcome.message:
            out.print(f"            {outcome.message}", markup=False)
        if outcome.reason:
            out.print(f"            skipped because: {outcome.reason}", markup=False)
    for reason, count in report.not_applicable().items():
        out.print(f"[dim]NOT APPLICABLE {count} case(s): {reason}[/dim]", markup=True)
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


#: How each outcome shows in JUnit XML: a failure, an error, skipped, or (None) a plain pass.
_JUNIT = {
    "pass": None,
    "fail": "failure",
    "fixed": "failure",
    "unsupported": "failure",
    "error": "error",
    "skip": "skipped",
    "not-applicable": "skipped",
}


def junit_xml(report: Report) -> str:
    """The report as JUnit XML, for CI systems: one ``testsuite`` per area, one ``testcase`` per
    case (``classname`` the area, ``name`` the id, ``time`` in seconds). ``fail``, ``fixed`` and
    ``unsupported`` are failures (they break the claimed profile), ``error`` an error, ``skip``
    and ``not-applicable`` skipped; the message says which outcome it was."""
    from xml.etree import ElementTree as ET

    implementation = report.implementation
    root = ET.Element(
        "testsuites",
        name=_xml_safe(
            f"dsh-session conformance {report.suite_version}: {implementation.get('name', '?')} "
            f"{implementation.get('version', '')}, profile {report.profile}"
        ),
    )
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    groups: dict[str, list[Outcome]] = {}
    for outcome in report.outcomes:
        groups.setdefault(outcome.area, []).append(outcome)
    for area, outcomes in sorted(groups.items()):
        suite = ET.SubElement(root, "testsuite", name=area)
        counts = {"tests": len(outcomes), "failures": 0, "errors": 0, "skipped": 0}
        for outcome in outcomes:
            case = ET.SubElement(
                suite, "testcase", classname=area, name=outcome.id, time=f"{outcome.seconds:.4f}"
            )
            kind = _JUNIT.get(outcome.status, "skipped")
            if kind is None:
                continue
            counts["failures" if kind == "failure" else "errors" if kind == "error" else "skipped"] += 1
            text = outcome.message + (f" (skipped because: {outcome.reason})" if outcome.reason else "")
            message = _xml_safe(f"{outcome.status}: {text}".strip())
            ET.SubElement(case, kind, type=outcome.status, message=message)
        suite.set("time", f"{sum(o.seconds for o in outcomes):.4f}")
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", f"{report.seconds:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(text: str) -> str:
    """``text`` with the characters XML 1.0 cannot hold (control characters, lone surrogates)
    written as ``\\uXXXX``."""
    return _NOT_XML.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
