"""The conformance suite's machinery: case files, the adapter protocol, the runner, the generators.

- :mod:`.protocol` -- the JSON-lines protocol and its operations;
- :mod:`.cases` -- case files: reading, checking, writing;
- :mod:`.compare` -- the suite's semantic JSON equality;
- :mod:`.workspace` -- artifacts materialised per case, and the runner's own steps;
- :mod:`.adapter` -- in-process and subprocess adapters, and :func:`~.adapter.serve`;
- :mod:`.runner` / :mod:`.report` -- running cases, outcomes, summaries;
- :mod:`.python_adapter` -- this library behind the protocol (the example adapter);
- :mod:`.spec_adapter` -- the executable spec behind it (its models of the stores live in
  ``dsh_spec``);
- :mod:`.scenario`, :mod:`.scenarios`, :mod:`.build`, :mod:`.generate` -- writing the suite from the spec;
- :mod:`.fixtures` -- invalid-log fixtures, each breaking exactly one rule.

``conformance/README.md`` (in the repository) is the implementer's guide.
"""
