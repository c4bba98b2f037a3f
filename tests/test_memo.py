"""The no-op fast paths: the persistent memo, the store listing, the selection index.

Each fast path must give exactly the answer of the slow one it replaces, and must never
serve a stale answer after an input changed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from evidence.core import memo as memos
from evidence.core.errors import BadInputError
from evidence.core.project import Project
from evidence.experiments.select import Selection, _SpecIndex, select
from evidence.experiments.spec import expand, expand_cached
from evidence.store.runs import RunStore, run_id_for


def age(path: Path, seconds: float = 60.0) -> None:
    """Move a file's mtime into the past, out of the memo's racily-clean window."""
    past = time.time() - seconds
    os.utime(path, (past, past))


# -- the memo ------------------------------------------------------------------------------


def test_memo_reuses_a_value_until_its_input_changes(tmp_path: Path) -> None:
    source = tmp_path / "input.txt"
    source.write_text("one")
    age(source)
    calls: list[str] = []

    def compute() -> str:
        calls.append(source.read_text())
        return source.read_text().upper()

    first = memos.Memo(tmp_path / "cache", "t")
    assert first.get("k", lambda: [source], compute) == "ONE"
    first.save()
    again = memos.Memo(tmp_path / "cache", "t")  # a new process: read from disk
    assert again.get("k", lambda: [source], compute) == "ONE"
    assert calls == ["one"]
    source.write_text("two, longer")  # size and mtime change
    age(source, 30.0)
    assert again.get("k", lambda: [source], compute) == "TWO, LONGER"
    assert calls == ["one", "two, longer"]


def test_memo_does_not_store_a_racily_clean_value(tmp_path: Path) -> None:
    source = tmp_path / "input.txt"
    source.write_text("fresh")  # modified just now: could change again within the same tick
    memo = memos.Memo(tmp_path / "cache", "t")
    memo.get("k", lambda: [source], lambda: 1)
    memo.save()
    stored = json.loads((tmp_path / "cache" / "memo-t.json").read_text()) \
        if (tmp_path / "cache" / "memo-t.json").exists() else {"entries": {}}
    assert "k" not in stored["entries"]


def test_a_corrupt_memo_file_is_only_a_cache_miss(tmp_path: Path) -> None:
    source = tmp_path / "input.txt"
    source.write_text("x")
    age(source)
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "memo-t.json").write_text("{not json")
    memo = memos.Memo(tmp_path / "cache", "t")
    assert memo.get("k", lambda: [source], lambda: [1, 2]) == [1, 2]
    memo.save()
    assert json.loads((tmp_path / "cache" / "memo-t.json").read_text())["entries"]["k"]["value"] == [1, 2]


def test_memo_errors_are_not_stored(tmp_path: Path) -> None:
    source = tmp_path / "input.txt"
    source.write_text("x")
    age(source)
    memo = memos.Memo(tmp_path / "cache", "t")

    def broken() -> None:
        raise BadInputError(source, "bad", field="f")

    for _ in range(2):  # raises every time, nothing remembered
        with pytest.raises(BadInputError):
            memo.get("k", lambda: [source], broken)


def test_a_copied_project_does_not_answer_from_the_original_files(tmp_path: Path) -> None:
    """Keys and inputs are stored relative to the root, and a memo file written for another
    folder (the original of a ``cp -a``) is not used: the copy's edited file is read."""
    import shutil

    original = tmp_path / "a"
    (original / "data").mkdir(parents=True)
    source = original / "data" / "x.txt"
    source.write_text("one")
    age(source)
    memo = memos.Memo(original / ".evidence" / "cache", "t", original)
    assert memo.get(f"read:{source}", lambda: [source], source.read_text) == "one"
    memo.save()
    stored = json.loads(memo.path.read_text())
    assert list(stored["entries"]) == ["read:data/x.txt"]
    assert stored["entries"]["read:data/x.txt"]["inputs"][0][0] == "data/x.txt"

    copy = tmp_path / "b"
    shutil.copytree(original, copy, symlinks=True)
    edited = copy / "data" / "x.txt"
    edited.write_text("two")
    age(edited)
    again = memos.Memo(copy / ".evidence" / "cache", "t", copy)
    assert again.get(f"read:{edited}", lambda: [edited], edited.read_text) == "two"
    # and a moved project starts afresh too: its values may name the old folder
    moved = tmp_path / "c"
    original.rename(moved)
    calls: list[str] = []
    assert memos.Memo(moved / ".evidence" / "cache", "t", moved).get(
        "k", lambda: [moved / "data" / "x.txt"], lambda: calls.append("computed") or "v") == "v"
    assert calls == ["computed"]


# -- expansions through the memo -----------------------------------------------------------


def _many(memo: memos.Memo, inputs: list[Path], count: int, tag: str = "v") -> None:
    for index in range(count):
        memo.store(f"key{index}", [inputs[index % len(inputs)]], f"{tag}{index}", time.time_ns())


def test_a_large_memo_is_written_in_shards_and_only_the_changed_shard_again(tmp_path: Path) -> None:
    """Past SHARD_ENTRIES entries the memo file names its shards; a changed value rewrites its
    own shard only, and every value reads back the same from a new process's memo."""
    inputs = []
    for index in range(3):
        inputs.append(tmp_path / f"in{index}.txt")
        inputs[-1].write_text(str(index))
        age(inputs[-1])
    count = memos.SHARD_ENTRIES + 100
    memo = memos.Memo(tmp_path / "cache", "t")
    _many(memo, inputs, count)
    memo.save()
    header = json.loads(memo.path.read_text())
    shards = header["shards"]
    assert shards >= memos.MIN_SHARDS and "entries" not in header
    files = sorted((tmp_path / "cache").glob("memo-t.s*.json"))
    assert len(files) == shards
    assert sum(len(json.loads(f.read_text())["entries"]) for f in files) == count
    before = {f.name: f.stat().st_ino for f in files}

    again = memos.Memo(tmp_path / "cache", "t")  # a new process
    assert [again.lookup(f"key{i}") for i in (0, 7, count - 1)] == \
        [(True, "v0"), (True, "v7"), (True, f"v{count - 1}")]
    again.store("key7", [inputs[1]], "changed", time.time_ns())
    again.save()
    after = {f.name: f.stat().st_ino for f in sorted((tmp_path / "cache").glob("memo-t.s*.json"))}
    rewritten = [name for name in after if after[name] != before[name]]
    assert rewritten == [again.shard_path(again._index("key7")).name]  # written atomically: a new inode
    third = memos.Memo(tmp_path / "cache", "t")
    assert third.lookup("key7") == (True, "changed") and third.lookup("key8") == (True, "v8")
    # an input edited: the value of every key that read it is a miss, in any shard
    inputs[2].write_text("edited, longer")
    age(inputs[2], 30.0)
    fourth = memos.Memo(tmp_path / "cache", "t")
    assert fourth.lookup("key2") == (False, None) and fourth.lookup("key5") == (False, None)
    assert fourth.lookup("key3") == (True, "v3")


def test_a_memo_that_shrinks_goes_back_to_one_file(tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text("x")
    age(source)
    memo = memos.Memo(tmp_path / "cache", "t")
    _many(memo, [source], memos.SHARD_ENTRIES + 1)
    memo.save()
    assert list((tmp_path / "cache").glob("memo-t.s*.json"))
    again = memos.Memo(tmp_path / "cache", "t")
    again.forget([f"key{i}" for i in range(10)])  # every shard read, the others' entries dropped
    again.save()
    assert not list((tmp_path / "cache").glob("memo-t.s*.json"))
    stored = json.loads(again.path.read_text())["entries"]
    assert sorted(stored) == sorted(f"key{i}" for i in range(10))
    assert memos.Memo(tmp_path / "cache", "t").lookup("key9") == (True, "v9")
    assert memos.Memo(tmp_path / "cache", "t").lookup("key10") == (False, None)


def test_the_shards_of_a_copied_project_are_not_used(tmp_path: Path) -> None:
    """Each shard records the folder it was written for, as the memo file does."""
    import shutil

    original = tmp_path / "a"
    original.mkdir()
    source = original / "in.txt"
    source.write_text("x")
    age(source)
    memo = memos.Memo(original / ".evidence" / "cache", "t", original)
    _many(memo, [source], memos.SHARD_ENTRIES + 1)
    memo.save()
    copy = tmp_path / "b"
    shutil.copytree(original, copy, symlinks=True)
    assert memos.Memo(copy / ".evidence" / "cache", "t", copy).lookup("key3") == (False, None)
    assert memos.Memo(original / ".evidence" / "cache", "t", original).lookup("key3") == (True, "v3")


def test_memoised_expansion_equals_expansion_and_follows_edits(make_project: Callable[..., Path]) -> None:
    root = make_project()
    project = Project.at(root)
    path = project.experiments_dir / "tiny.toml"
    for file in [path, project.trainers_dir, *project.trainers_dir.glob("*.py")]:
        age(file)
    direct = [s.to_json() for s in expand(project, path)]
    expand_cached(project, path)  # computes (the data cache was just written: racy, not stored)
    for file in project.cache_dir.glob("*.json"):
        age(file)
    expand_cached(project, path)  # stores
    memos.save_all()  # as the process would at exit
    memos._REGISTRY.clear()  # as in a new process: read back from the memo file
    assert [s.to_json() for s in expand_cached(project, path)] == direct
    # an edit of the trainer changes every key, and the memo must see it
    trainer = project.trainers_dir / f"{direct[0]['identity']['trainer']}.py"
    trainer.write_text(trainer.read_text() + "\n# edited\n")
    age(trainer, 10.0)
    after = [s.key for s in expand_cached(project, path)]
    assert after == [s.key for s in expand(project, path)]
    assert set(after).isdisjoint(d["key"] for d in direct)



def test_a_config_edit_re_expands_without_numpy_and_a_data_edit_changes_the_data_identity(
        make_project: Callable[..., Path]) -> None:
    root = make_project()
    project = Project.at(root)
    path = project.experiments_dir / "tiny.toml"
    for file in [path, project.trainers_dir, *project.trainers_dir.glob("*.py")]:
        age(file)
    expand_cached(project, path)
    for file in project.cache_dir.glob("*.json"):
        age(file)
    expand_cached(project, path)  # every memo stored, the data identity's too
    memos.save_all()  # as the process would at exit
    path.write_text(path.read_text().replace("config = { hidden = 32 }", "config = { hidden = 24 }"))
    age(path, 10.0)
    code = ("import json, sys; from pathlib import Path; from evidence.core.project import Project; "
            "from evidence.experiments.spec import expand_cached; "
            f"specs = expand_cached(Project.at(Path({str(root)!r})), Path({str(path)!r})); "
            "print(json.dumps({'numpy': 'numpy' in sys.modules, 'specs': [s.to_json() for s in specs]}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    answer = json.loads(done.stdout)
    assert answer["numpy"] is False  # the data identity came from the memo
    assert answer["specs"] == [s.to_json() for s in expand(project, path)]
    assert any(s["identity"]["config"].get("hidden") == 24 for s in answer["specs"])
    before = {s.label: s.identity["data"] for s in expand_cached(project, path)}
    path.write_text(path.read_text().replace("split_seed = 0", "split_seed = 1"))
    age(path, 5.0)
    after = {s.label: s.identity["data"] for s in expand_cached(project, path)}
    assert after == {s.label: s.identity["data"] for s in expand(project, path)}
    assert all(after[label]["split_digests"] != before[label]["split_digests"] for label in before)

# -- the store listing ---------------------------------------------------------------------


def staged(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "results.json").write_text('{"metric": 0.5}\n')
    return folder


def test_find_sees_a_run_sealed_after_the_listing_was_read(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    (tmp_path / "runs").mkdir()
    keys = [f"{i:02x}" * 32 for i in range(3)]
    assert store.find(keys[0]) is None  # the listing is now cached, empty
    # another process seals a run: a rename into runs/, which this process did not do
    other = RunStore(tmp_path / "runs")
    other.seal(staged(tmp_path, "a"), run_id_for(keys[0]), keys[0])
    assert store.find(keys[0]) is not None
    assert store.next_run_id(keys[0]) == run_id_for(keys[0], 2)
    store.seal(staged(tmp_path, "b"), run_id_for(keys[0], 2), keys[0])
    found = store.find(keys[0])
    assert found is not None and found.run_id == run_id_for(keys[0], 2)
    assert store.find(keys[1]) is None


def test_quick_check_names_a_malformed_manifest(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    key = "cd" * 32
    run = store.seal(staged(tmp_path, "a"), run_id_for(key), key)
    manifest = run.path / "manifest.json"
    manifest.chmod(0o644)
    for text, expected in [('{"files": {"results.json": {"size": "17"}}}', "no 'files' table"),
                           ("[1, 2]", "no 'files' table"),
                           ("{", "malformed"),
                           ('{"run_id": "x", "files": {"../escape": {"size": 1}}}', "unsafe path")]:
        if "unsafe" in expected:
            text = text.replace('"x"', json.dumps(run.run_id))
        manifest.write_text(text)
        finding = store.quick_check(run.run_id)
        assert finding is not None and finding.file == "manifest.json" and expected in finding.problem


# -- the selection index -------------------------------------------------------------------

GRID_EXPERIMENT = """
trainer = "mlp"
seeds = [0, 1]
[data]
dataset = "digits"
[config]
epochs = 1
hidden = 8
lr = 0.1
[[variants]]
name = "a"
[[variants]]
name = "b"
role = "control"
[grid]
lr = [0.1, 0.01, 1]
"""


@pytest.mark.parametrize("where", [
    {}, {"variant": "a"}, {"lr": [0.1, 1]}, {"config.lr": 0.01, "seed": 1}, {"role": "control", "lr": 1.0},
    {"hidden": 8}, {"lr": 0.5}, {"missing": None},
])
def test_selection_index_matches_linear_matching(make_project: Callable[..., Path],
                                                  where: dict[str, object]) -> None:
    project = Project.at(make_project({"experiments/grid.toml": GRID_EXPERIMENT}))
    specs = expand_cached(project, project.experiments_dir / "grid.toml")
    selection = Selection.from_mapping({"experiment": "grid", "where": where}, "test", "select")
    assert _SpecIndex(specs).matching(selection) == [s for s in specs if selection.matches(s)]
    if any(selection.matches(s) for s in specs):
        assert [r.spec for r in select(project, selection)] == [s for s in specs if selection.matches(s)]
    else:
        with pytest.raises(BadInputError, match="matches no run"):
            select(project, selection)


# -- the store survey ----------------------------------------------------------------------


def test_survey_agrees_with_quick_check_and_sees_tampering(tmp_path: Path) -> None:
    from evidence.store import survey as surveys

    project = Project.at(tmp_path)
    store = RunStore(project.runs_dir)
    keys = [f"{i:02x}" * 32 for i in range(4)]
    runs = [store.seal(staged(tmp_path, f"s{i}"), run_id_for(k), k) for i, k in enumerate(keys)]
    for run in runs:
        for path in [run.path, *run.path.iterdir()]:
            age(path)
    first = surveys.survey(project)
    assert all(first.intact(r.run_id) for r in runs)
    memos._REGISTRY.clear()
    surveys._SURVEYS.clear()
    again = surveys.survey(project)  # manifests from the memo this time
    assert again.fingerprint == first.fingerprint and again.findings == first.findings
    # same-size tampering: the quick check cannot see it, the fingerprint must
    results = runs[0].path / "results.json"
    results.chmod(0o644)
    results.write_text('{"metric": 0.9}\n')
    # truncation: both must see it
    truncated = runs[1].path / "results.json"
    truncated.chmod(0o644)
    truncated.write_text("{}")
    surveys._SURVEYS.clear()
    after = surveys.survey(project)
    assert after.fingerprint != first.fingerprint
    assert after.intact(runs[0].run_id)
    assert not after.intact(runs[1].run_id)
    assert after.findings[runs[1].run_id] == store.quick_check(runs[1].run_id)
    assert not after.intact("f" * 16)  # a run that does not exist is not intact


def test_a_racily_clean_value_is_reused_in_the_same_process_only(tmp_path: Path) -> None:
    source = tmp_path / "input.txt"
    source.write_text("fresh")
    calls: list[int] = []

    def compute() -> int:
        calls.append(1)
        return len(calls)

    memo = memos.Memo(tmp_path / "cache", "t")
    assert memo.get("k", lambda: [source], compute) == 1
    assert memo.get("k", lambda: [source], compute) == 1  # same process, same file: no recompute
    memo.save()
    assert memos.Memo(tmp_path / "cache", "t").get("k", lambda: [source], compute) == 2


def test_memoised_values_reach_the_memo_file_at_exit(tmp_path: Path) -> None:
    """Lookups that never call save() themselves (file digests) are written back at exit."""
    (tmp_path / "dodo.py").write_text("")
    target = tmp_path / "data.bin"
    target.write_bytes(b"x" * 1000)
    age(target)
    code = ("from pathlib import Path; from evidence.core import memo; "
            "from evidence.core.project import Project; "
            f"print(memo.digest(Project.at(Path({str(tmp_path)!r})), Path({str(target)!r})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    stored = json.loads((Project.at(tmp_path).cache_dir / "memo-digests.json").read_text())
    assert stored["entries"]["data.bin"]["value"] == done.stdout.strip()  # keyed relative to the root

