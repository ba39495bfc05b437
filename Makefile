# The README's commands: `make demo` builds the default dataset, `make test` runs the tests.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CONFIG ?= configs/smoke.yaml
# Installed without their declared dependencies (see the venv recipe), and into their own folder.
NO_DEPS := groundingdino-py segment-anything addict yapf platformdirs anny
OWN_FOLDER := torchvision timm
OUT ?= out/smoke

space := $(subst ,, )

.PHONY: venv demo demo-realistic test bench lock clean assets-infinigen test-infinigen readme-figures images base-image

venv: $(STAMP)

# Reinstalls only when pyproject.toml or constraints.txt changed; the project is installed editable,
# every dependency at the version in constraints.txt.
# GroundedSAM (docs/odi.md): GroundingDINO and SAM without their declared dependencies (these would
# add opencv-python beside opencv-python-headless); torchvision and timm into their own folder, which only
# benchmarks/odi/stages/annotation/torchvision_ops.py puts on sys.path (an importable, unpatched torchvision breaks transformers).
# anny goes in without its dependencies: it declares warp-lang (392 MB, only for its optional Warp
# skinning), which the project does not use; its other runtime dependencies are the project's own.
# pip installs without compiling and compileall then compiles on every core (pip compiles on one: about 50 s of
# a first venv's 90 here); a few files only a newer Python parses fail there as they do under pip, hence `|| true`.
# The benchmarks and renderers are found through the installed metadata's entry points (pyproject.toml): the
# egg-info setuptools leaves in the checkout would shadow it for a process started here once it is stale.
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip setuptools wheel
	$(BIN)/pip install --quiet --no-compile -c constraints.txt -e ".[test,bench]"
	$(BIN)/pip install --quiet --no-compile --no-deps -c constraints.txt $(NO_DEPS)
	$(BIN)/pip install --quiet --no-compile --no-deps -c constraints.txt --upgrade --target $(VENV)/opt/groundedsam \
	  $(OWN_FOLDER)
	$(BIN)/python -m compileall -qq -j 0 $(VENV)/lib $(VENV)/opt || true
	rm -rf benchfoundry.egg-info
	touch $(STAMP)

demo: venv
	$(BIN)/benchfoundry build $(CONFIG) --out $(OUT)

# Style first (ruff: format and lint, pyproject.toml), then every test on TEST_WORKERS pytest-xdist workers (a
# file's tests stay on one worker, so a module fixture's build is made once; TEST_WORKERS=0 runs them in this
# process); the files marked `long` are handed out first (tests/conftest.py), and three workers keep both cores
# busy while one waits on SLURM; the 25 slowest are listed. The workers share the cores, so torch, OpenBLAS and
# XGBoost run one thread each (OMP_NUM_THREADS: with two, SAM's image encoder costs 14% more CPU on an idle machine,
# more on shared cores), and pytest's rewritten test modules are cached in __pycache__ even where
# PYTHONDONTWRITEBYTECODE is set (about 4 CPU s a worker).
TEST_WORKERS ?= 3
test: venv
	$(BIN)/ruff format --check --quiet .
	$(BIN)/ruff check --quiet .
	OMP_NUM_THREADS=1 PYTHONDONTWRITEBYTECODE= \
	  $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=25 tests

# The realistic panoramas' asset library (docs/odi.md, "Realistic panoramas"): Infinigen in its own venv in a cache
# folder (it pins bpy 4.2 and numpy < 2; about 18.5 min and 2.3 GB once, most of it compiling scikit-image), then
# ASSET_PER_CLASS seeded objects per class as .blend files with a manifest (about 1 s an asset; resumable).
INFINIGEN_CACHE ?= .cache/infinigen
INFINIGEN_VENV := $(INFINIGEN_CACHE)/venv
ASSET_CLASSES ?= chair,sofa,table,lamp,bookshelf,potted plant,rug,desk,cabinet,nightstand,bed,tree
ASSET_PER_CLASS ?= 4
ASSET_SEED ?= 0

$(INFINIGEN_VENV)/.installed: constraints-infinigen.txt
	test -x $(INFINIGEN_VENV)/bin/python || $(PYTHON) -m venv $(INFINIGEN_VENV)
	$(INFINIGEN_VENV)/bin/pip install --quiet --upgrade pip setuptools wheel
	$(INFINIGEN_VENV)/bin/pip install --quiet -c constraints-infinigen.txt infinigen bpy numpy scikit-image
	touch $@

assets-infinigen: venv $(INFINIGEN_VENV)/.installed
	$(BIN)/benchfoundry assets infinigen --classes "$(ASSET_CLASSES)" --per-class $(ASSET_PER_CLASS) \
	  --seed $(ASSET_SEED) --library $(INFINIGEN_CACHE)/library --python $(INFINIGEN_VENV)/bin/python

# make demo's build with the asset library wherever a room is drawn (ODI's panoramas, ViewSpatial's scans; SynDORBench
# draws none): the library is made on first use (Infinigen's venv and its assets, above) and reused afterwards (a
# rerun of assets-infinigen generates nothing, in about a second).
REALISTIC_OUT ?= out/realistic
demo-realistic: assets-infinigen
	$(BIN)/benchfoundry build $(CONFIG) --out $(REALISTIC_OUT) \
	  --set odi.synthetic.asset_library=$(INFINIGEN_CACHE)/library \
	  --set viewspatial.synthetic.asset_library=$(INFINIGEN_CACHE)/library

# One integration run through Infinigen itself (two small assets); skipped when its venv does not exist.
test-infinigen: venv
	INFINIGEN_PYTHON=$(INFINIGEN_VENV)/bin/python $(BIN)/python -m pytest -q -rs -p no:cacheprovider \
	  tests/test_asset_library.py -k infinigen_venv

# Every timing bench in bench/ (not bench_table.py, which writes the table, nor viewspatial_release.py, a comparison
# with the authors' release that needs their file, nor scale.py, hours of rehearsal builds: run it by name), or
# those BENCHES names; each records its rows of the Benchmarks table (docs/performance.md) in its own file (a rerun
# replaces only its rows) and render_quality writes its own table: the spans marked benchmarks and render-quality
# are written from them, no figure typed by hand.
BENCH_OUT ?= out/bench
BENCHES ?= $(filter-out bench/bench_table.py bench/viewspatial_release.py bench/scale.py,$(wildcard bench/*.py))
BENCH_ARGS_render_quality = --table $(BENCH_OUT)/render-quality.md
bench_name = $(basename $(notdir $(1)))
bench: venv
	@mkdir -p $(BENCH_OUT)/rows
	@set -e; $(foreach b,$(BENCHES),echo "== $(b)"; rm -f $(BENCH_OUT)/rows/$(call bench_name,$(b)).jsonl; \
	  BENCH_ROWS=$(BENCH_OUT)/rows/$(call bench_name,$(b)).jsonl \
	  $(BIN)/python $(b) $(BENCH_ARGS_$(call bench_name,$(b)));)
	$(BIN)/python bench/bench_table.py $(BENCH_OUT)/rows $(BENCH_OUT)/benchmarks.md
	$(BIN)/python docs/readme_figures.py --marked benchmarks $(BENCH_OUT)/benchmarks.md
	$(if $(filter bench/render_quality.py,$(BENCHES)),$(BIN)/python docs/readme_figures.py --marked render-quality \
	  $(BENCH_OUT)/render-quality.md)

# The marked smoke figures (docs/exports.md), from BUILD's build.json (a smoke build), or from the smoke preset's plans.
BUILD ?=
readme-figures: venv
	$(BIN)/python docs/readme_figures.py $(BUILD)

# The command-line reference, docs/cli.md, generated from the parser (tests/test_docs.py fails while it is stale).
.PHONY: docs
docs: venv
	$(BIN)/python docs/cli_reference.py

# Re-resolves the newest versions pyproject.toml allows into constraints.txt; run make test after it.
# The --no-deps installs are frozen with the rest; torchvision and timm (their own folder, matched to torch by
# hand) keep their pins: bump them together with torch.
lock:
	rm -rf .venv-lock && $(PYTHON) -m venv .venv-lock
	.venv-lock/bin/pip install --quiet -e ".[test,bench]"
	.venv-lock/bin/pip install --quiet --no-deps $(NO_DEPS)
	.venv-lock/bin/pip freeze --exclude-editable > .venv-lock/freeze.txt
	{ sed -n 1,2p constraints.txt; { sed 's/+cpu$$//' .venv-lock/freeze.txt; \
	  grep -E "^($(subst $(space),|,$(OWN_FOLDER)))==" constraints.txt; } | sort -f; } > constraints.txt.new
	mv constraints.txt.new constraints.txt && rm -rf .venv-lock

# The container images (docker/), built with podman: `make images` builds IMAGES, each tagged
# benchfoundry-<name>:$(IMAGE_TAG). No registry is needed: the base (`podman build --from`, replacing each Dockerfile's
# own FROM, the official image) is Debian bookworm's python3.11 with the libraries the Dockerfiles install
# (BASE_PACKAGES), made by mmdebstrap from DEBIAN_MIRROR and imported once, tagged by its package list; BASE_IMAGE=
# (empty) builds from the Dockerfiles' own bases instead. Every wheel comes from a wheelhouse made here at the
# versions of constraints.txt (docker/.wheels, remade when pyproject.toml, constraints.txt or docker's requirements
# change), mounted into the build and never into a layer: torch first, the CPU build from TORCH_INDEX
# (or pip's configured find-links), then the rest, which then keeps that torch; the recipe fails if it is not a CPU
# build. podman runs with runc and docker/containers.conf (CONTAINERS_CONF, unless set), and builds in the docker
# format (the OCI format drops SHELL).
IMAGES ?= render-cpu annotate
IMAGE_TAG ?= latest
PODMAN ?= podman --runtime runc
BASE_PACKAGES := python3.11 python3.11-venv ca-certificates libxrender1 libxi6 libxkbcommon0 libsm6 libgl1 libegl1 \
  libglib2.0-0 make
BASE_TAG := bookworm-$(shell echo $(BASE_PACKAGES) | md5sum | cut -c1-8)
BASE_IMAGE ?= localhost/benchfoundry-base:$(BASE_TAG)
DEBIAN_MIRROR ?= http://deb.debian.org/debian
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu
WHEELS := docker/.wheels
comma := ,
IMAGE_TARGETS := $(foreach i,render-cpu render-gpu annotate,image-$(i))
.PHONY: $(IMAGE_TARGETS)

images: $(IMAGES:%=image-%)
images base-image $(IMAGE_TARGETS): export CONTAINERS_CONF ?= $(CURDIR)/docker/containers.conf

$(IMAGE_TARGETS): image-%: $(if $(BASE_IMAGE),base-image) $(WHEELS)/.complete
	$(PODMAN) build --format docker $(if $(BASE_IMAGE),--from $(BASE_IMAGE)) --build-arg WHEELS=/wheels \
	  --volume $(CURDIR)/$(WHEELS):/wheels:ro -f docker/Dockerfile.$* -t benchfoundry-$*:$(IMAGE_TAG) .

base-image:
	$(PODMAN) image exists $(BASE_IMAGE) || { mmdebstrap --quiet --variant=minbase \
	  --include=$(subst $(space),$(comma),$(BASE_PACKAGES)) --dpkgopt='path-exclude=/usr/share/man/*' \
	  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
	  --dpkgopt='path-exclude=/usr/share/locale/*' bookworm docker/.base.tar $(DEBIAN_MIRROR) \
	  && $(PODMAN) import --change 'CMD ["/bin/bash"]' docker/.base.tar $(BASE_IMAGE); } ; rm -f docker/.base.tar
	$(PODMAN) image exists $(BASE_IMAGE)

# The wheelhouse, by WHEEL_PYTHON's pip (the venv's when there is one): torch, then the project's dependencies and
# build requirements (an sdist is built here, so no image needs a compiler), then the annotation image's additions
# and torchvision and timm without their dependencies. Then, with BASE_IMAGE, pip in the base's own Python adds
# what that Python's markers ask for beyond this one's (bookworm's 3.11.2 needs async-timeout for redis, 3.11.7
# does not), taking the rest from the wheelhouse; it reaches the index through CA_BUNDLE (pip's certificate file).
WHEEL_PYTHON ?= $(if $(wildcard $(BIN)/python),$(BIN)/python,$(PYTHON))
CA_BUNDLE ?= $(or $(PIP_CERT),$(firstword $(wildcard /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt)))
$(WHEELS)/.complete: export CONTAINERS_CONF ?= $(CURDIR)/docker/containers.conf
$(WHEELS)/.complete: pyproject.toml constraints.txt docker/requirements.py docker/annotate-requirements.txt \
  | $(if $(BASE_IMAGE),base-image)
	rm -rf $(WHEELS) && mkdir -p $(WHEELS)
	$(WHEEL_PYTHON) -m pip wheel --quiet --no-deps -w $(WHEELS) -c constraints.txt \
	  $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX)) torch 2>&1 | grep -v -e 'is ignored' -e Retrying || true
	ls $(WHEELS)/torch-*+cpu-*.whl >/dev/null || { echo "$(WHEELS): torch is not a CPU build" >&2; exit 1; }
	$(WHEEL_PYTHON) docker/requirements.py --build > $(WHEELS)/requirements.txt
	$(WHEEL_PYTHON) -m pip wheel --quiet -w $(WHEELS) --find-links $(WHEELS) -c constraints.txt \
	  -r $(WHEELS)/requirements.txt
	$(WHEEL_PYTHON) -m pip wheel --quiet --no-deps -w $(WHEELS) -c constraints.txt \
	  -r docker/annotate-requirements.txt $(OWN_FOLDER)
	$(if $(BASE_IMAGE),$(PODMAN) run --rm --volume $(CURDIR)/$(WHEELS):/wheels \
	  --volume $(CURDIR)/constraints.txt:/constraints.txt:ro \
	  $(if $(CA_BUNDLE),--volume $(abspath $(CA_BUNDLE)):/ca.crt:ro --env PIP_CERT=/ca.crt) $(BASE_IMAGE) \
	  bash -c 'python3.11 -m venv /tmp/venv && /tmp/venv/bin/pip wheel --quiet --disable-pip-version-check \
	  -w /wheels --find-links /wheels -c /constraints.txt -r /wheels/requirements.txt')
	! ls $(WHEELS)/torch-*.whl | grep -v +cpu || { echo "$(WHEELS): a torch that is not a CPU build" >&2; exit 1; }
	touch $@

clean:
	rm -rf $(VENV) out
