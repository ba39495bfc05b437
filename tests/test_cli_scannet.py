"""`benchfoundry scannet select`: same JSON for both layouts, options reach the selection, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from test_scannet_io import make_tiny_scan

from benchfoundry.benchmarks.viewspatial.scannet.stages import coverage as cov
from benchfoundry.benchmarks.viewspatial.scannet.stages.scannet_read import open_scan
from benchfoundry.cli.main import main


def _select(capsys, *args: str) -> dict:
    assert main(["scannet", "select", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_console_script_same_selection_for_both_layouts(tmp_path: Path) -> None:
    outs = []
    for layout in ("raw", "export"):
        scan_dir = make_tiny_scan(tmp_path / layout, layout)
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "benchfoundry.cli.main",
                "scannet",
                "select",
                str(scan_dir),
                "--depth-stride",
                "1",
                "--json",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        outs.append(json.loads(run.stdout))
    assert outs[0] == outs[1]
    assert set(outs[0]) == {"selected", "coverage", "skipped"}
    assert outs[0]["skipped"] == [{"frame": 2, "reason": "non-finite pose (-inf)"}]
    assert 0 < outs[0]["coverage"] <= 1 and outs[0]["selected"]


def test_budget_one_picks_the_frame_seeing_most_wall(tmp_path: Path, capsys) -> None:
    scan_dir = make_tiny_scan(tmp_path / "raw", "raw")
    out = _select(capsys, str(scan_dir), "--budget", "1", "--depth-stride", "1", "--min-gain", "0")
    scan = open_scan(scan_dir)
    counts = {}
    for fid, depth, pose in scan.iter_depth():
        pts = cov.backproject(depth, scan.intrinsics.depth, pose)
        cells = np.unique(np.floor(pts / 0.1).astype(int), axis=0)
        on_wall = (cells[:, 1] == 20) & (abs(cells[:, 0]) <= 20) & (cells[:, 2] >= 0) & (cells[:, 2] <= 25)
        counts[fid] = int(on_wall.sum())
    assert out["selected"] == [max(counts, key=lambda f: (counts[f], -f))]
    assert out["coverage"] == counts[out["selected"][0]] / (41 * 26)


def test_larger_voxels_cover_more_with_fewer_cells(tmp_path: Path, capsys) -> None:
    scan_dir = make_tiny_scan(tmp_path / "exp", "export")
    fine = _select(capsys, str(scan_dir), "--budget", "1", "--voxel", "0.1")
    coarse = _select(capsys, str(scan_dir), "--budget", "1", "--voxel", "0.5")
    assert coarse["coverage"] > fine["coverage"]


def test_errors_are_reported(tmp_path: Path, capsys) -> None:
    assert main(["scannet", "select", str(tmp_path / "nowhere"), "--json"]) == 2
    assert "nowhere" in capsys.readouterr().err
    scan_dir = make_tiny_scan(tmp_path / "raw", "raw")
    assert main(["scannet", "select", str(scan_dir), "--budget", "0"]) == 2
    assert "budget" in capsys.readouterr().err
    sens = scan_dir / "scene0000_00.sens"
    sens.write_bytes(sens.read_bytes()[:-5])
    assert main(["scannet", "select", str(scan_dir), "--json"]) == 2
    assert "scene0000_00.sens: frame 4" in capsys.readouterr().err


def test_text_output_lists_frames(tmp_path: Path, capsys) -> None:
    scan_dir = make_tiny_scan(tmp_path / "raw", "raw")
    assert main(["scannet", "select", str(scan_dir)]) == 0
    text = capsys.readouterr().out
    assert "scene voxels" in text and "skipped frame 2" in text
