"""The artifact store: atomic writes, completion markers, manifests without duplicates."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from benchfoundry.core.atomic_files import atomic_path, write_json_atomic
from benchfoundry.core.store import StageStore, check_shard_id, sweep_build_leftovers


def test_interrupted_write_leaves_no_partial_file(tmp_path: Path) -> None:
    target = tmp_path / "out" / "data.bin"
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_bytes(b"half of it")
            raise RuntimeError("worker died")
    assert not target.exists()
    assert list(target.parent.iterdir()) == []


def test_interrupted_rewrite_keeps_previous_version(tmp_path: Path) -> None:
    target = tmp_path / "build.json"
    write_json_atomic(target, {"v": 1})
    with pytest.raises(KeyboardInterrupt):
        with atomic_path(target) as tmp:
            tmp.write_text("{broken")
            raise KeyboardInterrupt
    assert target.read_text().strip().startswith("{")
    assert '"v": 1' in target.read_text()


def _rows(shard: str, n: int) -> pd.DataFrame:
    return pd.DataFrame({"shard": [shard] * n, "i": range(n)})


def test_rerun_skips_finished_shards_and_manifest_has_no_duplicates(tmp_path: Path) -> None:
    store = StageStore(tmp_path, "bench", "stage")
    executed: list[str] = []

    def run(shards: list[str]) -> None:
        for shard in shards:
            if store.is_done(shard, spec_hash="h1"):
                continue
            executed.append(shard)
            store.write_shard(shard, _rows(shard, 3), spec_hash="h1")
        store.write_manifest(shards)

    run(["a", "b", "c"])
    assert executed == ["a", "b", "c"]
    run(["a", "b", "c"])
    assert executed == ["a", "b", "c"]
    manifest = store.read_manifest()
    assert len(manifest) == 9
    assert not manifest.duplicated().any()


def test_changed_spec_hash_reruns_only_that_shard(tmp_path: Path) -> None:
    store = StageStore(tmp_path, "bench", "stage")
    store.write_shard("a", _rows("a", 1), spec_hash="old")
    store.write_shard("b", _rows("b", 1), spec_hash="new")
    assert not store.is_done("a", spec_hash="new")
    assert store.is_done("b", spec_hash="new")


def test_shard_without_marker_is_not_done(tmp_path: Path) -> None:
    store = StageStore(tmp_path, "bench", "stage")
    store.write_shard("a", _rows("a", 2))
    store.marker_path("a").unlink()
    assert not store.is_done("a")
    assert store.done_shards() == []


def test_manifest_is_limited_to_current_shards_and_sorted(tmp_path: Path) -> None:
    store = StageStore(tmp_path, "bench", "stage")
    for shard in ["c", "a", "stale"]:
        store.write_shard(shard, _rows(shard, 2))
    store.write_manifest(["c", "a"])
    assert store.read_manifest()["shard"].tolist() == ["a", "a", "c", "c"]


def test_manifest_refuses_unfinished_shards(tmp_path: Path) -> None:
    store = StageStore(tmp_path, "bench", "stage")
    store.write_shard("a", _rows("a", 1))
    with pytest.raises(FileNotFoundError, match="missing"):
        store.write_manifest(["a", "missing"])


def test_problems_are_kept_in_markers(tmp_path: Path) -> None:
    store = StageStore(tmp_path, "bench", "stage")
    store.write_shard("a", _rows("a", 1), problems=[{"item": "img3", "reason": "corrupt JPEG"}])
    assert store.problems() == [{"item": "img3", "reason": "corrupt JPEG"}]


@pytest.mark.parametrize("bad", ["", "../x", "a/b", "with space", ".hidden"])
def test_shard_ids_that_are_not_file_names_are_rejected(bad: str) -> None:
    with pytest.raises(ValueError, match="shard id"):
        check_shard_id(bad)


def test_spec_hash_ignores_key_order_and_sees_every_value() -> None:
    from benchfoundry.core.store import spec_hash

    base = {"samples": 16, "lighting": "night", "rig": {"azimuths": [0, 45]}}
    assert spec_hash(base) == spec_hash({"rig": {"azimuths": [0, 45]}, "lighting": "night", "samples": 16})
    assert (
        len({spec_hash(base), spec_hash({**base, "samples": 17}), spec_hash({**base, "rig": {"azimuths": [45, 0]}})})
        == 3
    )


def test_a_killed_writer_leaves_only_a_temporary_which_the_next_build_sweeps(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys

    target = tmp_path / "stage" / "manifest.parquet"
    script = (
        "import os, signal, sys\n"
        "from benchfoundry.core.store import atomic_path\n"
        "with atomic_path(sys.argv[1]) as tmp:\n"
        "    tmp.write_bytes(b'half a file')\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    result = subprocess.run([sys.executable, "-c", script, str(target)])
    assert result.returncode == -signal.SIGKILL
    assert not target.exists()
    (left,) = target.parent.glob(".*.tmp")
    unrelated = tmp_path / "stage" / "notes.tmp"  # not ours: no leading dot
    unrelated.write_bytes(b"keep")
    users = tmp_path / ".draft.tmp"  # not under a benchmark folder
    users.write_bytes(b"keep")
    assert sweep_build_leftovers(tmp_path, ["stage"], ["build.json"]) == [left]
    assert not left.exists() and unrelated.exists() and users.exists()


def fill_disk(folder: Path) -> Path:
    """A file that takes every free byte of `folder`'s filesystem."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as fh:
        try:
            while True:
                fh.write(b"\0" * 4096)
        except OSError:
            pass
    return filler


def test_a_full_disk_fails_the_shard_naming_it_and_a_rerun_with_space_matches_a_clean_store(tmp_path: Path) -> None:
    import errno
    import subprocess

    mnt = tmp_path / "small"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    rows = {s: pd.DataFrame({"item": [f"{s}-{i}" for i in range(50)], "value": range(50)}) for s in ("a", "b")}
    try:
        store = StageStore(mnt, "bench", "stage")
        store.write_shard("a", rows["a"], spec_hash="h")
        filler = fill_disk(mnt)
        with pytest.raises(OSError) as err:
            store.write_shard("b", rows["b"], spec_hash="h")
        assert err.value.errno == errno.ENOSPC and err.value.filename == str(store.shard_path("b"))
        assert store.is_done("a", "h") and not store.is_done("b")
        assert not [p for p in mnt.rglob("*") if p.name.endswith(".tmp")]
        filler.unlink()
        store.write_shard("b", rows["b"], spec_hash="h")
        store.write_manifest()
        clean = StageStore(tmp_path / "clean", "bench", "stage")
        for shard, frame in rows.items():
            clean.write_shard(shard, frame, spec_hash="h")
        clean.write_manifest()
        for path in (clean.manifest_path, clean.shard_path("a"), clean.shard_path("b")):
            assert (mnt / path.relative_to(tmp_path / "clean")).read_bytes() == path.read_bytes()
    finally:
        subprocess.run(["umount", "--lazy", str(mnt)], check=True)
