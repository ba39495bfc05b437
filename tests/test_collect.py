"""flows/collect.collect_shards: the one helper every flow uses to wait on its shard futures."""

from __future__ import annotations

from benchfoundry.flows.collect import collect_shards


class Future:
    """A finished future: its value, or the exception its task raised after its retries."""

    def __init__(self, value: object) -> None:
        self.value = value

    def result(self) -> object:
        if isinstance(self.value, Exception):
            raise self.value
        return self.value


def test_a_task_that_raises_is_reported_and_the_other_results_kept() -> None:
    results, failed = collect_shards(
        "scan",
        [("a", Future({"scene_id": "a"})), ("b", Future(RuntimeError("boom"))), ("c", Future({"scene_id": "c"}))],
        {"a": "/scans/a", "b": "/scans/b", "c": "/scans/c"},
    )
    assert results == [{"scene_id": "a"}, {"scene_id": "c"}]
    assert [(p["stage"], p["item"], p["kind"], p["path"]) for p in failed] == [("scan", "b", "failed", "/scans/b")]
    assert "RuntimeError: boom" in failed[0]["reason"]


def test_without_paths_a_failure_names_no_path_and_long_errors_are_cut() -> None:
    _, failed = collect_shards("render", [("s1", Future(ValueError("x" * 5000)))])
    assert "path" not in failed[0]
    assert failed[0]["reason"].startswith("ValueError: x") and len(failed[0]["reason"]) == 2000


def test_progress_counts_done_and_failed_shards(capsys) -> None:  # type: ignore[no-untyped-def]
    futures = [(f"s{i}", Future(RuntimeError("x") if i in (2, 5) else i)) for i in range(20)]
    collect_shards("render", futures)
    lines = capsys.readouterr().err.splitlines()  # not a terminal: a line per tenth of the shards
    assert len(lines) == 10
    assert lines[0].endswith("2/20 shards") and "#" * 2 in lines[0]
    assert lines[-1].startswith("render ") and lines[-1].endswith("20/20 shards, 2 failed")
    assert "[" + "#" * 24 + "]" in lines[-1]
