"""`benchfoundry sphere …`: cube faces, the six Omni-CoT views and an Omni-CoT crop of one panorama.

Options left off the command line take their values from `odi.sphere` of the build config given
with `--config FILE` and `--set KEY.PATH=VALUE` (as `benchfoundry build`; without `--config`, from
the config defaults); options given on the command line win.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
from collections.abc import Callable
from pathlib import Path

from benchfoundry.benchmarks.odi.config import SphereConfig
from benchfoundry.benchmarks.odi.stages import sphere_images
from benchfoundry.configs.loader import load_config
from benchfoundry.core.output_root import check_output_dir, check_output_file
from benchfoundry.core.safe_paths import inside
from benchfoundry.pipeline.commands import Arg, Command, arg, model_from_flags, print_error, print_out

#: Per command, the options whose default is a field of `odi.sphere` (option dest → SphereConfig field).
CONFIG_FIELDS: dict[str, dict[str, str]] = {
    "cubemap": {"face_width": "face_width", "interpolation": "interpolation", "max_decoded_mb": "max_decoded_mb"},
    "views": {
        "size": "view_size",
        "fov": "view_fov_deg",
        "interpolation": "interpolation",
        "max_decoded_mb": "max_decoded_mb",
    },
    "crop": {
        "max_decoded_mb": "max_decoded_mb",
        "size": "crop_size",
        "margin": "crop_margin_deg",
        "min_fov": "crop_min_fov_deg",
        "max_fov": "crop_max_fov_deg",
        "interpolation": "interpolation",
    },
}


def with_config_defaults(args: argparse.Namespace) -> argparse.Namespace:
    """`args` with each option left unset filled from `odi.sphere` of `--config` / `--set` (ConfigError if bad),
    the result checked as `odi.sphere` is (a field of view in (0, 180), the crop's least not above its
    largest, …): ValueError naming the flag."""
    section = load_config(args.config, args.set or []).odi.sphere
    fields = CONFIG_FIELDS[args.sphere_command]
    filled = {dest: getattr(section, field) for dest, field in fields.items() if getattr(args, dest) is None}
    merged = argparse.Namespace(**{**vars(args), **filled})
    model_from_flags(
        SphereConfig,
        {field: "--" + dest.replace("_", "-") for dest, field in fields.items()},
        {field: getattr(merged, dest) for dest, field in fields.items()},
    )
    return merged


def _sphere_command(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Fill config defaults and check the output path up front; an unwritable output (a file where a folder
    should be, no permission, a read-only disk) is an error line and exit 2."""

    @functools.wraps(command)
    def run(args: argparse.Namespace) -> int:
        args = with_config_defaults(args)
        if "outdir" in vars(args):
            check_output_dir(args.outdir, create=False)
        else:
            check_output_file(args.out)
        try:
            return command(args)
        except OSError as exc:
            print_error(exc)
            return 2

    return run


def _out_path(outdir: Path, name: str, source: Path, ext: str | None) -> Path:
    return inside(outdir, f"{name}{ext or source.suffix}", "--ext")


def _extension(text: str) -> str:
    """An argparse type: a file extension, `.png` (a dot, then letters and digits)."""
    if not re.fullmatch(r"\.[A-Za-z0-9]{1,10}", text):
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a file extension such as .png")
    return text


@_sphere_command
def _cmd_cubemap(args: argparse.Namespace) -> int:
    erp = sphere_images.read_erp(args.erp, args.max_decoded_mb)
    faces = sphere_images.erp_to_cubemap(erp, args.face_width, args.interpolation)
    outdir = Path(args.outdir)
    written = []
    if args.layout in ("faces", "both"):
        written += [
            sphere_images.write_image(_out_path(outdir, name, Path(args.erp), args.ext), face)
            for name, face in faces.items()
        ]
    if args.layout in ("strip", "both"):
        written.append(
            sphere_images.write_image(
                _out_path(outdir, "strip", Path(args.erp), args.ext), sphere_images.faces_to_strip(faces)
            )
        )
    for path in written:
        print_out(path)
    return 0


@_sphere_command
def _cmd_views(args: argparse.Namespace) -> int:
    erp = sphere_images.read_erp(args.erp, args.max_decoded_mb)
    views = sphere_images.omnicot_views(erp, args.size, args.fov, args.interpolation)
    for name, image in views.items():
        print_out(sphere_images.write_image(_out_path(Path(args.outdir), name, Path(args.erp), args.ext), image))
    return 0


def _parse_box(text: str) -> tuple[float, float, float, float]:
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--box {text!r}: expected four numbers x1,y1,x2,y2") from None
    if len(values) != 4:
        raise argparse.ArgumentTypeError(f"--box {text!r}: expected four numbers x1,y1,x2,y2")
    return values  # type: ignore[return-value]


@_sphere_command
def _cmd_crop(args: argparse.Namespace) -> int:
    erp = sphere_images.read_erp(args.erp, args.max_decoded_mb)
    image, view = sphere_images.omnicot_crop(
        erp, args.box, args.size, args.margin, args.min_fov, args.max_fov, args.interpolation
    )
    sphere_images.write_image(args.out, image)
    print(
        json.dumps(
            {
                "out": str(args.out),
                "theta_deg": round(view.theta_deg, 4),
                "phi_deg": round(view.phi_deg, 4),
                "fov_deg": round(view.hfov_deg, 4),
                "size": view.width,
            }
        )
    )
    return 0


_DEFAULTS = SphereConfig()


def _config_default(field: str) -> str:
    return f"default: odi.sphere.{field} of --config, else {getattr(_DEFAULTS, field)}"


def _common(with_outdir: bool = True) -> tuple[Arg, ...]:
    """The panorama, the output folder (with `with_outdir`) and the options every sphere command shares."""
    outdir = (
        arg("outdir", help="output folder"),
        arg("--ext", type=_extension, help="output file extension, e.g. .png (default: the input's)"),
    )
    return (
        arg("erp", help="equirectangular panorama (2:1; PNG, JPEG, EXR, … as OpenCV reads)"),
        *(outdir if with_outdir else ()),
        arg("--interpolation", choices=("bilinear", "nearest"), help=_config_default("interpolation")),
        arg(
            "--max-decoded-mb",
            type=int,
            help=f"refuse a panorama whose header says it decodes to more MiB ({_config_default('max_decoded_mb')})",
        ),
        arg("--config", metavar="FILE", help="YAML build config whose odi.sphere supplies the defaults"),
        arg(
            "--set",
            action="append",
            metavar="KEY.PATH=VALUE",
            help="override a config value, e.g. odi.sphere.face_width=512 (repeatable)",
        ),
    )


COMMAND = Command(
    "sphere",
    "cube faces, Omni-CoT views and crops of an ERP panorama",
    metavar="SPHERE_COMMAND",
    commands=(
        Command(
            "cubemap",
            "six cube faces: front, right, back, left, up, down",
            (
                *_common(),
                arg("--face-width", type=int, help=f"face side, px ({_config_default('face_width')})"),
                arg(
                    "--layout",
                    choices=("faces", "strip", "both"),
                    default="faces",
                    help="one file per face, a 6w × w strip (F R B L U D), or both",
                ),
            ),
            _cmd_cubemap,
        ),
        Command(
            "views",
            "the six Omni-CoT views: front, right, back, left, top, bottom",
            (
                *_common(),
                arg("--size", type=int, help=f"view side, px ({_config_default('view_size')})"),
                arg("--fov", type=float, help=f"field of view, degrees ({_config_default('view_fov_deg')})"),
            ),
            _cmd_views,
        ),
        Command(
            "crop",
            "the Omni-CoT crop of a box normalised to the ERP (docs/design/odi.md §3)",
            (
                *_common(with_outdir=False),
                arg(
                    "--box",
                    type=_parse_box,
                    required=True,
                    metavar="x1,y1,x2,y2",
                    help="box normalised to [0, 1]; x1 > x2 wraps across θ = ±180°",
                ),
                arg("out", help="output image file"),
                arg("--size", type=int, help=f"crop side, px ({_config_default('crop_size')})"),
                arg("--margin", type=float, help=f"margin, degrees ({_config_default('crop_margin_deg')})"),
                arg("--min-fov", type=float, help=f"degrees ({_config_default('crop_min_fov_deg')})"),
                arg("--max-fov", type=float, help=f"degrees ({_config_default('crop_max_fov_deg')})"),
            ),
            _cmd_crop,
        ),
    ),
)
