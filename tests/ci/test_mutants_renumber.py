"""scripts/mutants --renumber: ledger entries and reviewed survivors follow
their mutant when code above it moves (the name's line:col changes, the
file, function and change do not); a name two current mutants share is
left alone (which one it meant cannot be told)."""
import importlib.machinery
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load():
    loader = importlib.machinery.SourceFileLoader("mutants_script", str(ROOT / "scripts" / "mutants"))
    spec = importlib.util.spec_from_loader("mutants_script", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def test_a_moved_mutant_keeps_its_entry_and_an_ambiguous_one_stays():
    m = load()
    have = {
        "crates/x/src/a.rs:10:5: replace > with >= in f": ["caught", "c"],
        "crates/x/src/a.rs:20:5: replace < with <= in g": ["missed", "c"],
        "crates/x/src/a.rs:30:1: delete ! in h": ["caught", "c"],
        "crates/x/src/a.rs:90:1: replace f -> bool with true": ["caught", "c"],
    }
    current = [
        "crates/x/src/a.rs:11:5: replace > with >= in f",
        "crates/x/src/a.rs:20:5: replace < with <= in g",
        "crates/x/src/a.rs:40:1: delete ! in h",
        "crates/x/src/a.rs:41:1: delete ! in h",
    ]
    assert m.renumbered(have, current) == {
        "crates/x/src/a.rs:10:5: replace > with >= in f": "crates/x/src/a.rs:11:5: replace > with >= in f"}
    # the current name already held (tested since): the old entry is not moved onto it
    have["crates/x/src/a.rs:11:5: replace > with >= in f"] = ["caught", "d"]
    assert m.renumbered(have, current) == {}
