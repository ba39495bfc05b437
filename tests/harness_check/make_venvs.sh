#!/bin/sh
# A throwaway venv with the real lmms-eval for tests/test_harness_check.py (never the project's venv): the package
# without its dependencies, the few its task loader imports, and the project venv's packages (datasets, torch,
# transformers, PIL) through a .pth file. Then: BENCHFOUNDRY_LMMS_PYTHON=/tmp/lmms-venv/bin/python make test.
set -e
VENV=${1:-/tmp/lmms-venv}
PROJECT_SITE=$(.venv/bin/python -c "import site; print(site.getsitepackages()[0])")
python3.11 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --no-deps lmms-eval==0.7.3 loguru accelerate tenacity evaluate sacrebleu portalocker \
    tabulate lxml
echo "$PROJECT_SITE" > "$("$VENV/bin/python" -c "import site; print(site.getsitepackages()[0])")/zz_project.pth"
"$VENV/bin/python" -c "from lmms_eval.tasks import TaskManager; print('lmms-eval task loader imports')"
