"""A differential check of json_value's surviving mutants, before one is listed as equivalent.

    python verify/json_value_survivors.py [--all] [WORKDIR]

For each survivor of the json_value mutation session in WORKDIR (default
``/tmp/dsh-session-mutation``; with ``--all`` also those listed in
``verify/equivalent_mutants.toml``), the mutated module is loaded beside the
real one and both are run on a corpus: the machines' edge payloads, a few
thousand random nested values with every awkward scalar and key (huge and
inexact integers, integral and tiny floats, NaN, lone surrogates, str and
float subclasses, tuples, index-like keys), containers at and past the depth
limit, and stored texts respelled by ``tests/foreign_text.py``. ``encode``,
``is_json_value``, ``canonical``, ``freeze`` (and the frozen value's
``plain`` flag), ``decode``, ``js_number``, ``js_string``,
``canonical_string``, ``is_array_index`` and ``canonical_stored`` are
compared; each mutant is printed SAME or DIFFERS (with the first
difference). SAME is evidence, not proof: the listing's reason is the
argument. Not part of ``check``; it needs a mutation session.
"""

import importlib.util
import json
import math
import random
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src"), str(ROOT / "spec")]
sys.setrecursionlimit(10000)
spec = importlib.util.spec_from_file_location("m", ROOT / "verify" / "mutation.py")
mm = importlib.util.module_from_spec(spec)
sys.modules["m"] = mm
spec.loader.exec_module(mm)
import orjson  # noqa: E402 (after the path is set)

import dsh_session.json_value as orig  # noqa: E402
from tests.foreign_text import FOREIGN_PAYLOADS, respell  # noqa: E402
from tests.machine_logs import EDGE_PAYLOADS  # noqa: E402

src = Path(orig.__file__).read_text().splitlines(keepends=True)


class S(str):
    pass


class F(float):
    pass


def corpus():
    rng = random.Random(7)
    vals = [make() for _, make in EDGE_PAYLOADS]
    atoms = [
        0,
        1,
        -1,
        2**53,
        -(2**53),
        2**53 + 1,
        -(2**53) - 1,
        2**53 - 1,
        2**64,
        2**1024,
        2**63,
        0.5,
        -0.0,
        2.0,
        1e21,
        1e-7,
        1e-6,
        123e-20,
        1.5e300,
        5e-324,
        1e16,
        1e20,
        12345.678,
        -1e21,
        math.nan,
        math.inf,
        -math.inf,
        True,
        False,
        None,
        "",
        "a",
        "/",
        "\ud800",
        "\udc00",
        "\ud83d\ude00",
        "\ud83d",
        "é",
        "\x00",
        '"\\',
        "\u2028",
        S("s"),
        F(1.5),
        (1, 2),
        b"x",
        10**30,
        9007199254740993.0,
    ]
    keys = [
        "a",
        "0",
        "1",
        "01",
        "10",
        "4294967294",
        "4294967295",
        "-1",
        "\ud800",
        "\ud83d\ude00",
        "é",
        "k" * 65,
        "1a",
        S("k"),
        1,
        "b",
    ]

    def rand(d):
        r = rng.random()
        if d > 3 or r < 0.4:
            return rng.choice(atoms)
        if r < 0.7:
            return [rand(d + 1) for _ in range(rng.randint(0, 4))]
        return {rng.choice(keys): rand(d + 1) for _ in range(rng.randint(0, 4))}

    vals += [rand(0) for _ in range(2000)]
    vals += [[a] for a in atoms] + [{k: 1} for k in keys] + atoms
    for depth in (199, 200, 201):
        v = []
        for _ in range(depth - 1):
            v = [v]
        vals.append(v)
        w = {}
        for _ in range(depth - 1):
            w = {"k": w}
        vals.append(w)
    return vals


def outcome(f, *a):
    try:
        r = f(*a)
        return ("ok", type(r).__name__, repr(r) if not isinstance(r, (bytes,)) else bytes(r))
    except Exception as e:
        return ("err", type(e).__name__, str(e))


def probe(mod, vals, stored):
    out = []
    for v in vals:
        out.append(outcome(mod.encode, v))
        out.append(outcome(mod.is_json_value, v))
        out.append(outcome(mod.canonical, v))
        fz = outcome(mod.freeze, v)
        out.append(fz[:2])
        try:
            f = mod.freeze(v)
            out.append(outcome(mod.encode, f))
            out.append(repr(f))
            out.append(repr(getattr(f, "plain", None)))
        except Exception:
            pass
        e = outcome(mod.encode, v)
        if e[0] == "ok":
            t = mod.encode(v)
            out.append(outcome(mod.decode, t))
            out.append(type(t).__name__)
        if type(v) in (int, float):
            out.append(outcome(mod.js_number, v))
        if type(v) is str:
            out.append(outcome(mod.js_string, v))
            out.append(outcome(mod.canonical_string, v))
        if type(v) is str:
            out.append(outcome(mod.is_array_index, v))
    for t, form in stored:
        out.append(outcome(mod.canonical_stored, t, form))
    return out


def stored_corpus(vals):
    rng = random.Random(3)
    out = []
    for v in vals[:3000]:
        try:
            canon = orig.encode(v)
        except Exception:
            continue
        try:
            parsed = json.loads(orig.decode(canon) and canon)
        except Exception:
            continue
        for _ in range(2):
            text = respell(parsed, rng).encode("utf-8", "surrogatepass")
            try:
                orjson.loads(text)
            except Exception:
                continue
            out.append((text, orig.STORED))
            out.append((b'{"type":"x","seq":0,"time":0,"data":' + text + b"}", orig.STORED_RECORD))
    for t in FOREIGN_PAYLOADS:
        out.append((t.encode(), orig.STORED))
    return out


def load_mutant(lineno, added):
    lines = list(src)
    old = lines[lineno - 1]
    indent = old[: len(old) - len(old.lstrip())]
    lines[lineno - 1] = indent + added.strip() + "\n"
    code = "".join(lines)
    mod = types.ModuleType("jv_mut")
    mod.__file__ = "jv_mut.py"
    sys.modules["jv_mut"] = mod
    exec(compile(code, "jv_mut.py", "exec"), mod.__dict__)
    return mod


vals = corpus()
stored = stored_corpus(vals)
base = probe(orig, vals, stored)
known = mm.equivalents()
args = [a for a in sys.argv[1:] if a != "--all"]
listed_too = "--all" in sys.argv
workdir = Path(args[0] if args else "/tmp/dsh-session-mutation")
checked = 0
for item, result in mm.results(workdir, "json_value"):
    if result is None or result.test_outcome is None or result.test_outcome.value != "survived":
        continue
    if not listed_too and mm.equivalent_reason("json_value", item, result, known):
        continue
    mut = item.mutations[0]
    checked += 1
    added = next(
        text[1:] for text in result.diff.splitlines() if text.startswith("+") and not text.startswith("+++")
    )
    removed, added_s = mm.changed_lines(result.diff)
    line = mut.start_pos[0]
    if src[line - 1].strip() != removed:
        print(f"{line} SKEW | {removed} => {added_s}")
        continue
    try:
        mod = load_mutant(line, added)
        orig._PLAIN_KEYS.clear()
        got = probe(mod, vals, stored)
    except Exception as e:
        print(f"{line} LOADFAIL {e!r} | {removed} => {added_s}")
        continue
    diffs = [i for i, (a, b) in enumerate(zip(base, got, strict=False)) if a != b]
    tag = "DIFFERS" if diffs or len(base) != len(got) else "SAME"
    ex = ""
    if diffs:
        ex = f" e.g. {base[diffs[0]]!r:.120} vs {got[diffs[0]]!r:.120}"
    print(f"{line} {tag} | {removed} => {added_s}{ex}", flush=True)
print(f"{checked} survivors checked ({'all' if listed_too else 'those not listed as equivalent'})")
