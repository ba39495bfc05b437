"""A build that runs out of disk mid-way (a real tmpfs): failed in one line naming the file and the errno,
build.json rewritten for this run, no temporaries left, and a rerun with space gives a clean build's bytes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from test_store import fill_disk
from test_viewspatial_flow import tiny_scans

from benchfoundry.configs.loader import load_config
from benchfoundry.flows.build import build


def _config(root: Path) -> object:
    (root / "val.txt").write_text("".join(f"{p.name}\n" for p in sorted((root / "scans").iterdir())))
    (root / "train.txt").write_text("")
    return load_config(
        None,
        [
            "syndor.enabled=false",
            "odi.enabled=false",
            f"viewspatial.scannet_root={root}",
            "viewspatial.label_map=null",
            "viewspatial.split_lists={val: val.txt, train: train.txt}",
            "viewspatial.coverage.depth_stride=1",
            "runner.task_retries=0",
            "viewspatial.coco.synthetic.images={}",
        ],
    )


def _outputs(out: Path) -> dict[str, bytes]:
    bench = out / "viewspatial"
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(bench.rglob("*"))
        if p.is_file() and not {"_done", "_clock"} & set(p.parts)
    }


def test_a_disk_full_mid_build_fails_cleanly_and_a_rerun_matches_a_clean_build(
    prefect_server: None, tmp_path: Path
) -> None:
    tiny_scans(tmp_path / "scannet" / "scans")
    config = _config(tmp_path / "scannet")
    clean = build(config, str(tmp_path / "clean"))
    assert clean["status"] == "finished", clean
    needed = sum(-(-len(b) // 4096) * 4096 for b in _outputs(tmp_path / "clean").values())  # tmpfs pages
    mnt = tmp_path / "small"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        filler = fill_disk(mnt)
        # Room for build.json and the marker but not for the scans' outputs: the build fails mid-way.
        free = 32 * 1024
        assert needed > 2 * free
        with open(filler, "r+b") as fh:
            fh.truncate(filler.stat().st_size - free)
        out = mnt / "out"
        record = build(config, str(out))
        assert record["status"] == "failed"
        on_disk = json.loads((out / "build.json").read_text())
        assert on_disk["status"] == "failed" and on_disk["config_hash"] == clean["config_hash"]
        reasons = (
            [record.get("record_error", "")]
            + [o["detail"] for o in record["benchmarks"].values()]
            + [p["reason"] for p in record["problems"]]
        )
        assert any("ENOSPC" in r and str(out) in r for r in reasons), reasons
        assert not [p for p in out.rglob("*") if p.name.endswith(".tmp")]
        filler.unlink()
        rerun = build(config, str(out))
        assert rerun["status"] == "finished", rerun
        assert _outputs(out) == _outputs(tmp_path / "clean")
    finally:
        subprocess.run(["umount", "--lazy", str(mnt)], check=True)
