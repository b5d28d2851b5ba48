"""fabula-env's PEP 517 build backend: maturin's, with the `fabula` program put in first.

The wheel carries two compiled things: the scorer (`fabula_env._native`, the crate
crates/fabula-py, which maturin builds) and the `fabula` command line (crate crates/fabula),
which maturin installs on PATH from `wheel-data/scripts/` (`[tool.maturin] data`). maturin
builds only the first, so before `build_wheel` and `build_editable` this backend runs

    cargo build -p fabula --profile $FABULA_CARGO_PROFILE      (default: release)

in the Cargo workspace (the repository root), copies the binary cargo reports into
`wheel-data/scripts/fabula` (stripped when `strip` is on PATH), hands over to maturin's own hook
and removes `wheel-data/` again. Every other hook is maturin's, run with `wheel-data/` present
(maturin refuses to read the project without it).

Environment (a relative path in them is read from the repository root, the workspace's):
  FABULA_CARGO_PROFILE  the Cargo profile of the `fabula` binary: `release` (default), `dev`
                        (target/debug, what `cargo build -p fabula` makes) or any profile of
                        the workspace's Cargo.toml.
  FABULA_BINARY         a `fabula` binary built already (`target/debug/fabula`, say): copied
                        (and stripped) instead of running cargo.
  CARGO_TARGET_DIR, CARGO  as cargo reads them, for both builds (cargo reports where it put
                        the binary).
  MATURIN_PEP517_ARGS   maturin's own: flags for the scorer's build (`--profile dev`, ...); by
                        maturin 1.16's rule the scorer is built with the release profile for
                        wheels and editable installs alike unless a `--profile` is given here.

The scorer and the program are separate builds: FABULA_CARGO_PROFILE changes the program's
profile only. An sdist carries the scorer's crates (maturin packs those) but not the command
line's, so a wheel built from an sdist needs FABULA_BINARY; a source checkout needs nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import maturin  # type: ignore[import-untyped]

# PEP 517 runs every hook with the project folder (python/fabula-env) as the working directory.
PROJECT = Path(__file__).resolve().parent.parent
DATA = PROJECT / "wheel-data"


def _workspace() -> Path:
    """The Cargo workspace: the repository root in a checkout (two levels up), the unpacked
    sdist's root in an sdist (maturin puts the workspace's Cargo.toml beside pyproject.toml)."""
    for folder in (PROJECT, *PROJECT.parents):
        manifest = folder / "Cargo.toml"
        if manifest.is_file() and "[workspace]" in manifest.read_text(errors="replace"):
            return folder
    return PROJECT.parent.parent


WORKSPACE = _workspace()
CLI_MANIFEST = WORKSPACE / "crates" / "fabula" / "Cargo.toml"


class BuildError(RuntimeError):
    """Building or finding the `fabula` program failed."""


def _say(message: str) -> None:
    # pip shows a backend's output only with -v, or when the build fails.
    print(f"fabula-env: {message}", file=sys.stderr, flush=True)


def cargo_build_fabula(profile: str) -> Path:
    """`cargo build -p fabula --profile PROFILE` in the workspace; the binary's path, as cargo
    reports it (so CARGO_TARGET_DIR, `build.target-dir` and custom profiles need no guessing)."""
    if not CLI_MANIFEST.is_file():
        raise BuildError(
            f"the `fabula` program's crate is not at {CLI_MANIFEST}: an sdist does not carry "
            "it. Build from a checkout of the fabula repository, or set FABULA_BINARY to a "
            "`fabula` binary built already"
        )
    cargo = os.environ.get("CARGO") or shutil.which("cargo")
    if cargo is None:
        raise BuildError(
            "cargo is not on PATH: building fabula-env from source needs a Rust toolchain "
            "(https://rustup.rs), or install the wheel (scripts/build-wheel.sh builds it)"
        )
    command = [cargo, "build", "-p", "fabula", "--profile", profile]
    command += ["--manifest-path", str(CLI_MANIFEST), "--message-format=json-render-diagnostics"]
    _say(f"running {' '.join(command)}")
    # Cargo's JSON messages come on stdout; its progress and diagnostics go to stderr as usual.
    process = subprocess.Popen(command, cwd=WORKSPACE, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    executable: str | None = None
    for line in process.stdout:
        try:
            message = json.loads(line)
        except ValueError:
            sys.stderr.write(line)
            continue
        target = message.get("target") or {}
        if (
            message.get("reason") == "compiler-artifact"
            and target.get("name") == "fabula"
            and "bin" in target.get("kind", [])
            and message.get("executable")
        ):
            executable = message["executable"]
    if process.wait() != 0:
        raise BuildError(f"{' '.join(command)} failed (exit status {process.returncode})")
    if executable is None or not Path(executable).is_file():
        raise BuildError(f"{' '.join(command)} reported no `fabula` executable")
    return Path(executable)


def _absolute_target_dir() -> None:
    """A relative CARGO_TARGET_DIR made absolute from the workspace root, for the cargo run
    here (in the workspace root) and maturin's (in python/fabula-env) alike."""
    target_dir = os.environ.get("CARGO_TARGET_DIR")
    if target_dir and not Path(target_dir).is_absolute():
        os.environ["CARGO_TARGET_DIR"] = str(WORKSPACE / target_dir)


def fabula_binary() -> Path:
    """The `fabula` binary the wheel carries: $FABULA_BINARY, else a cargo build of it."""
    given = os.environ.get("FABULA_BINARY")
    if given:
        path = WORKSPACE / given  # an absolute `given` stays as it is
        if not path.is_file():
            raise BuildError(f"FABULA_BINARY={given} is not a file ({path})")
        return path
    return cargo_build_fabula(os.environ.get("FABULA_CARGO_PROFILE") or "release")


def place_binary(binary: Path, data: Path = DATA) -> Path:
    """Copies `binary` to DATA/scripts/fabula (maturin installs DATA/scripts/* on PATH),
    stripped of its symbols when `strip` is available, as scripts/build-wheel.sh does."""
    scripts = data / "scripts"
    scripts.mkdir(parents=True, exist_ok=True)
    target = scripts / "fabula"
    partial = scripts / ".fabula.partial"
    shutil.copyfile(binary, partial)
    partial.chmod(0o755)
    strip = shutil.which("strip")
    if strip is not None:
        subprocess.run([strip, str(partial)], check=True)
    partial.replace(target)
    return target


@contextmanager
def _data_dir(with_binary: bool) -> Iterator[None]:
    """`wheel-data/` for the length of one maturin hook: with the `fabula` binary in it for a
    wheel, empty otherwise. It is removed afterwards unless it was there before (left by
    scripts/build-wheel.sh, say) and no binary was put in."""
    existed = DATA.is_dir()
    _absolute_target_dir()
    try:
        if with_binary:
            binary = fabula_binary()
            _say(f"the wheel carries {binary} as `fabula`")
            place_binary(binary)
        else:
            DATA.mkdir(exist_ok=True)
        yield
    finally:
        if with_binary or not existed:
            shutil.rmtree(DATA, ignore_errors=True)


@contextmanager
def _private_out(config_settings: Mapping[str, Any] | None) -> Iterator[dict[str, Any]]:
    """maturin's settings with `--out` set to a temporary folder, unless one is given.

    maturin's hook builds the wheel into `target/wheels/` (its default `--out`) and copies it
    to pip's folder, leaving a `linux_x86_64` wheel beside the `manylinux` one that
    scripts/build-wheel.sh puts there: `pip install target/wheels/fabula_env-*.whl` then
    matches two wheels of one version and pip refuses both. The hook's wheel goes to a folder
    of its own, removed after the copy."""
    args = list(maturin.get_maturin_pep517_args(config_settings))
    settings = dict(config_settings or {})
    if any(arg in ("-o", "--out") or arg.startswith("--out=") for arg in args):
        yield settings
        return
    with tempfile.TemporaryDirectory(prefix="fabula-env-wheel-") as out:
        settings["maturin.build-args"] = [*args, "--out", out]
        yield settings


def build_wheel(
    wheel_directory: str,
    config_settings: Mapping[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    with _data_dir(with_binary=True), _private_out(config_settings) as settings:
        return str(maturin.build_wheel(wheel_directory, settings, metadata_directory))


def build_editable(
    wheel_directory: str,
    config_settings: Mapping[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    with _data_dir(with_binary=True), _private_out(config_settings) as settings:
        return str(maturin.build_editable(wheel_directory, settings, metadata_directory))


def build_sdist(sdist_directory: str, config_settings: Mapping[str, Any] | None = None) -> str:
    with _data_dir(with_binary=False):
        return str(maturin.build_sdist(sdist_directory, config_settings))


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: Mapping[str, Any] | None = None
) -> str:
    with _data_dir(with_binary=False):
        return str(maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings))


def prepare_metadata_for_build_editable(
    metadata_directory: str, config_settings: Mapping[str, Any] | None = None
) -> str:
    with _data_dir(with_binary=False):
        return str(
            maturin.prepare_metadata_for_build_editable(metadata_directory, config_settings)
        )


get_requires_for_build_wheel = maturin.get_requires_for_build_wheel
get_requires_for_build_editable = maturin.get_requires_for_build_editable
get_requires_for_build_sdist = maturin.get_requires_for_build_sdist

