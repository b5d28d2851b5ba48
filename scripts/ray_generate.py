"""Generate a fabula dataset on a Ray cluster: one Ray task per shard, then merge and index.

Usage:
    python scripts/ray_generate.py generate --count N --shards K --out DIR [--seed S]
        [--fabula PATH] [--jobs-per-task J] [--address ADDR] [--local-cpus C]

Each of the K tasks runs `fabula generate --shard I/K` with `--jobs J` and reserves J CPUs, so Ray
places as many shards side by side as the cluster has cores. Every node must see DIR at the same
path (a shared filesystem) and have the fabula binary at PATH. When all tasks have finished, the
driver runs `fabula manifest merge DIR` (manifest.json, byte-identical to one unsharded run's),
then K more tasks run `fabula index DIR --shard I/K` (each world's persisted search index), and
last one task runs `fabula index DIR` unsharded, which finds every world's index fresh and builds
the dataset's passage index (the root /retrieve's), which spans all worlds. Without --address it
starts a local Ray cluster (of C CPUs; default: all).
It prints the wall time of each phase and exits non-zero, naming the shard, when a task fails.
Needs Python 3.11 and `ray` from PyPI (.ci/run pins the version it tests).
"""

import argparse
import os
import subprocess
import sys
import time

import ray


@ray.remote
def fabula_shard(command: list[str], shard: str) -> str:
    """Runs one shard's fabula command on the node Ray chose; returns its last line of output.

    Both `generate` and `index` are resumable, so Ray may retry a shard after losing a node."""
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"shard {shard} failed (exit {done.returncode}): {done.stderr.strip()}")
    return next(iter(done.stderr.strip().splitlines()[-1:]), "")


def run(command: list[str]) -> None:
    """Runs a fabula command on the driver, failing loudly."""
    print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True)


def run_shards(phase: str, commands: dict[str, list[str]], cpus: int) -> None:
    """Runs one Ray task per shard (`I/K` -> command), each reserving `cpus` CPUs; on the first
    failure cancels the rest and exits naming the shard."""
    started = time.monotonic()
    task = fabula_shard.options(num_cpus=cpus)
    pending = {task.remote(command, shard): shard for shard, command in commands.items()}
    while pending:
        [ready], _ = ray.wait(list(pending))
        shard = pending.pop(ready)
        try:
            report = ray.get(ready)
        except ray.exceptions.RayError as error:
            for ref in pending:
                ray.cancel(ref, force=True)
            ray.shutdown()
            sys.exit(f"error: {phase} shard {shard}: {getattr(error, 'cause', None) or error}")
        print(f"{phase} shard {shard}: {report}", flush=True)
    print(f"{phase}: {len(commands)} shards in {time.monotonic() - started:.1f} s", flush=True)


def generate(args: argparse.Namespace) -> None:
    fabula = os.path.abspath(args.fabula)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)

    started = time.monotonic()
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.local_cpus)
    print(f"ray: {ray.cluster_resources().get('CPU', 0):.0f} CPUs, "
          f"started in {time.monotonic() - started:.1f} s", flush=True)

    jobs = str(args.jobs_per_task)
    shards = [f"{index}/{args.shards}" for index in range(args.shards)]
    run_shards("generate", {
        shard: [fabula, "generate", "--count", str(args.count), "--seed", str(args.seed),
                "--jobs", jobs, "--shard", shard, "--out", out]
        for shard in shards
    }, args.jobs_per_task)

    started = time.monotonic()
    run([fabula, "manifest", "merge", out])
    print(f"merge: {time.monotonic() - started:.1f} s", flush=True)

    run_shards("index", {
        shard: [fabula, "index", out, "--jobs", jobs, "--shard", shard] for shard in shards
    }, args.jobs_per_task)

    # The passage index spans every world, so one task builds it once every shard is indexed.
    run_shards("passages", {"all": [fabula, "index", out, "--jobs", jobs]}, args.jobs_per_task)
    ray.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    gen = commands.add_parser(
        "generate", help="generate a dataset as K Ray tasks, then merge and index it")
    gen.add_argument("--count", type=int, required=True, help="worlds in the dataset")
    gen.add_argument("--shards", type=int, required=True, help="K: shards, one Ray task each")
    gen.add_argument("--out", required=True,
                     help="output directory, on a filesystem that every node shares")
    gen.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    gen.add_argument("--fabula", default="target/release/fabula",
                     help="the fabula binary, at the same path on every node")
    gen.add_argument("--jobs-per-task", type=int, default=1,
                     help="J: fabula's --jobs and the CPUs each task reserves (default 1)")
    gen.add_argument("--address",
                     help="a running Ray cluster (e.g. auto); default: start a local one")
    gen.add_argument("--local-cpus", type=int, help="CPUs of the local cluster (default: all)")
    args = parser.parse_args()
    if args.count < 1 or args.shards < 1 or args.jobs_per_task < 1:
        parser.error("--count, --shards and --jobs-per-task must be at least 1")
    generate(args)


if __name__ == "__main__":
    main()
