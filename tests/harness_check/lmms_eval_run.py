"""Runs inside a venv that holds the real lmms-eval (tests/harness_check/make_venvs.sh): loads the exported tasks
with lmms-eval's own TaskManager, answers every document with the reply `replies.json` gives its key (a fake
model), runs each task's `process_results` and its `metric_list` aggregations, and prints {task: {metric: value}}
as JSON.

    python lmms_eval_run.py EXPORT_FOLDER REPLIES_JSON TASK [TASK …]

A document's key: ViewSpatial `question` + "|" + its `image_path` list as JSON; ODI its `id`; SynD `task:img_path`.
"""

from __future__ import annotations

import json
import sys


def doc_key(task: str, doc: dict) -> str:
    if task == "benchfoundry_viewspatial":
        return doc["question"] + "|" + json.dumps(list(doc["image_path"]))
    if task == "benchfoundry_odi":
        return str(doc["id"])
    return f"{doc['task']}:{doc['img_path']}"


def main(folder: str, replies_path: str, names: list[str]) -> dict[str, dict[str, float]]:
    from lmms_eval.tasks import TaskManager, get_task_dict

    replies = json.loads(open(replies_path, encoding="utf-8").read())
    tasks = get_task_dict(names, TaskManager(include_path=folder))
    out: dict[str, dict[str, float]] = {}
    for name, task in tasks.items():
        values: dict[str, list] = {}
        for doc in task.test_docs():
            task.doc_to_text(doc)
            task.doc_to_visual(doc)
            for metric, value in task.process_results(doc, [replies[doc_key(name, doc)]]).items():
                values.setdefault(metric, []).append(value)
        aggregations = task.aggregation()
        out[name] = {metric: float(aggregations[metric](v)) for metric, v in values.items() if metric in aggregations}
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2], sys.argv[3:])))
