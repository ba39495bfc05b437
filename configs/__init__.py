"""The config tree of a build: pydantic models (one module per section), the YAML loader with `--set`,
and the presets (`smoke.yaml`, …) as package data.

It imports only the kernel (benchfoundry/core/), and no prefect, bpy, cv2, pandas or torch.
"""
