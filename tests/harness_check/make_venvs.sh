#!/bin/sh
# Throwaway venvs with the real harnesses for tests/test_harness_check.py (never the project's venv): each package
# without its dependencies, the few pure ones its loaders import, and the project venv's packages (datasets, torch,
# transformers, PIL, benchfoundry itself through its editable install's own .pth) through a .pth file that adds the
# project's site-packages as a site directory; the VLMEvalKit venv also sees the project's torchvision folder
# (opt/groundedsam, benchmarks/odi/stages/annotation/torchvision_ops.py), which VLMEvalKit's dataset package imports.
#   tests/harness_check/make_venvs.sh [VLMEVALKIT_SOURCE]
# lmms-eval 0.7.3 comes from PyPI; VLMEvalKit is not on the package registry: give a checkout of
# open-compass/VLMEvalKit, put on PYTHONPATH when the test runs. Then:
#   BENCHFOUNDRY_LMMS_PYTHON=/tmp/lmms-venv/bin/python BENCHFOUNDRY_VLMEVAL_PYTHON=/tmp/vlmeval-venv/bin/python \
#   PYTHONPATH=VLMEVALKIT_SOURCE .venv/bin/python -m pytest tests/test_harness_check.py
set -e
PROJECT_SITE=$(.venv/bin/python -c "import site; print(site.getsitepackages()[0])")
link_project() {
    echo "import site; site.addsitedir('$PROJECT_SITE')" \
        > "$("$1/bin/python" -c "import site; print(site.getsitepackages()[0])")/zz_project.pth"
}
python3.11 -m venv /tmp/lmms-venv
/tmp/lmms-venv/bin/pip install --quiet --no-deps lmms-eval==0.7.3 loguru accelerate tenacity evaluate sacrebleu \
    portalocker tabulate lxml
link_project /tmp/lmms-venv
/tmp/lmms-venv/bin/python -c "from lmms_eval.tasks import TaskManager; print('lmms-eval task loader imports')"
if [ -n "$1" ]; then
    python3.11 -m venv /tmp/vlmeval-venv
    /tmp/vlmeval-venv/bin/pip install --quiet --no-deps tabulate termcolor validators sty openai httpx2 portalocker \
        timeout_decorator levenshtein rapidfuzz decord jieba nltk rouge math_verify latex2sympy2_extended \
        "antlr4-python3-runtime==4.11.1" pylatexenc rouge_score absl-py json_repair num2words accelerate \
        qwen_vl_utils python-dotenv
    link_project /tmp/vlmeval-venv
    mkdir -p /tmp/vlmeval-venv/opt
    ln -sfn "$(pwd)/.venv/opt/groundedsam" /tmp/vlmeval-venv/opt/groundedsam
    PYTHONPATH="$1" /tmp/vlmeval-venv/bin/python -c "from benchfoundry.benchmarks.odi.stages.annotation.torchvision_ops import ensure_torchvision_ops as e; e(); import vlmeval.dataset; print('VLMEvalKit imports')"
fi
