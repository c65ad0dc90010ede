"""CrossHair plugin: how to make a symbolic ``dsh_spec.Event`` and ``Surface`` (``--extra_plugin``).

An event's ``data`` is declared as any JSON value, a recursive type CrossHair
cannot build by itself; this builds events shaped like the log's: one of the
surface-eligible types (or a log-only one), a symbolic seq, no marker /
``append`` / a replace with symbolic endpoints, and a payload of 0-3 text
blocks, one of a few source kinds (plain, quoted, a lone surrogate), a
symbolic error flag and envelope -- or no object at all. Choices are symbolic
integers rather than symbolic strings, which keeps each path cheap.
"""


def _register() -> None:
    # Plugins are executed with their own namespace: keep every name local.
    from crosshair import ResumedTracing, SymbolicFactory, register_type

    from dsh_spec.events import Event, Replace
    from dsh_spec.surface import Surface

    kinds = ("user/message", "assistant/message", "tool/result", "context/message", "steering/message")
    texts = ("first", "", "\ud800 third")
    source_kinds = ("user", "plugin", 'say "hi"', "\ud83d")

    def make_event(factory: SymbolicFactory) -> Event:
        pick = factory(int, "_kind")
        seq = factory(int, "_seq")
        which_op = factory(int, "_op")
        start = factory(int, "_start")
        end = factory(int, "_end")
        blocks = factory(int, "_blocks")
        source = factory(int, "_source")
        is_error = factory(bool, "_is_error")
        envelope = factory(int, "_envelope")
        has_data = factory(bool, "_has_data")
        with ResumedTracing():  # type: ignore[no-untyped-call]
            kind = "turn/start"
            for index, name in enumerate(kinds):
                if pick == index:
                    kind = name
            op = None if which_op == 0 else "append" if which_op == 1 else Replace(start, end)
            data: object = None
            if has_data:
                payload = {
                    "content": [{"type": "text", "text": text} for text in texts[: max(0, min(blocks, 3))]],
                    "source": {"kind": source_kinds[0]},
                    "callId": "c1",
                    "isError": is_error,
                }
                for index, name in enumerate(source_kinds):
                    if source == index:
                        payload["source"] = {"kind": name}
                if envelope == 1:
                    payload["envelope"] = "raw"
                elif envelope == 2:
                    payload["envelope"] = "context"
                data = payload
            return Event(kind, seq, 0, data, None, op)  # type: ignore[arg-type]

    def make_surface(factory: SymbolicFactory) -> Surface:
        length = factory(int, "_length")
        seqs = [factory(int, f"_seq{index}") for index in range(4)]
        generation = factory(int, "_generation")
        with ResumedTracing():  # type: ignore[no-untyped-call]
            size = 0
            for candidate in range(1, len(seqs) + 1):
                if length == candidate:
                    size = candidate
            return Surface(tuple(seqs[:size]), generation)

    register_type(Event, make_event)
    register_type(Surface, make_surface)


_register()
