"""scripts/ray_generate.py on a local Ray cluster gives the bytes of one unsharded run.

Runs the script (4 shards of 12 worlds, a local cluster of 2 CPUs) and `fabula generate` once,
then compares manifest.json, every world file and every world's search index byte for byte. The fabula binary comes from
the environment variable FABULA_BIN (default target/debug/fabula); .ci/run runs this test.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FABULA = Path(os.environ.get("FABULA_BIN", ROOT / "target" / "debug" / "fabula")).resolve()
COUNT, SHARDS, SEED = 12, 4, 11


def run(command: list[str]) -> subprocess.CompletedProcess:
    """Runs a command, failing the test with its output when it fails."""
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done


def dataset_files(directory: Path) -> dict[str, bytes]:
    """The manifests and world files of a dataset directory, by name."""
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir())
            if path.name.startswith("manifest") or path.suffix == ".sqlite"}


def test_four_ray_shards_give_the_bytes_of_one_run(tmp_path: Path) -> None:
    assert FABULA.is_file(), f"no fabula binary at {FABULA}: build it or set FABULA_BIN"
    on_ray, single = tmp_path / "ray", tmp_path / "single"
    done = run([sys.executable, ROOT / "scripts" / "ray_generate.py", "generate",
                "--count", COUNT, "--shards", SHARDS, "--seed", SEED, "--out", on_ray,
                "--fabula", FABULA, "--local-cpus", 2])
    for phase in ["generate: 4 shards in", "merge:", "index: 4 shards in", "passages: 1 shards in"]:
        assert phase in done.stdout, done.stdout
    run([FABULA, "generate", "--count", COUNT, "--seed", SEED, "--jobs", 2, "--out", single])
    run([FABULA, "index", single, "--jobs", 2])

    ray_files, single_files = dataset_files(on_ray), dataset_files(single)
    assert sorted(ray_files) == sorted(single_files)
    assert "manifest.json" in single_files and len(single_files) == COUNT + 1
    for name, data in single_files.items():
        assert ray_files[name] == data, f"{name} differs between 4 Ray shards and one run"

    # Indexes depend only on their world files, so the shards' indexes are the single run's too,
    # and so is the passage index over all of them.
    ray_indexes, single_indexes = (
        {str(path.relative_to(directory)): path.read_bytes()
         for path in sorted((directory / "index").rglob("*")) if path.is_file()}
        for directory in (on_ray, single))
    passage_files = [name for name in single_indexes if name.startswith("index/passages/")]
    assert len(single_indexes) == COUNT + len(passage_files) and "index/passages/stamp" in passage_files
    assert ray_indexes == single_indexes


def test_a_failed_shard_fails_the_run_and_names_it(tmp_path: Path) -> None:
    # A stand-in for fabula whose every command fails.
    failing = tmp_path / "fabula"
    failing.write_text("#!/bin/sh\necho 'disk on fire' >&2\nexit 3\n")
    failing.chmod(0o755)
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "ray_generate.py"), "generate",
                           "--count", "2", "--shards", "2", "--out", str(tmp_path / "out"),
                           "--fabula", str(failing), "--local-cpus", "1"],
                          capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert "error: generate shard" in done.stderr and "(exit 3): disk on fire" in done.stderr, done.stderr
    assert "merge:" not in done.stdout, done.stdout
