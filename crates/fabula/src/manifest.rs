//! `fabula manifest`: commands over a dataset directory's manifests, such as joining the shard
//! manifests that `fabula generate --shard I/K` runs wrote into one shared directory.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use fabula_dataset as dataset;

/// The subcommands of `fabula manifest`.
#[derive(Debug, Subcommand)]
pub enum ManifestCommand {
    /// Join the shard manifests (manifest.shard-I-of-K.json) of all K shards in a directory into
    /// manifest.json, byte-identical to the manifest of one unsharded run.
    Merge(MergeArgs),
}

/// Arguments of `fabula manifest merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The dataset directory that all shards generated into.
    pub dir: PathBuf,
    /// Keep the shard manifests after the merge (by default they are removed).
    #[arg(long)]
    pub keep_shards: bool,
}

/// Runs `fabula manifest`.
pub fn run_manifest(command: &ManifestCommand) -> anyhow::Result<()> {
    match command {
        ManifestCommand::Merge(args) => run_merge(args),
    }
}

fn run_merge(args: &MergeArgs) -> anyhow::Result<()> {
    // Every error names the directory or file it concerns.
    let summary = dataset::merge_shards(&args.dir, args.keep_shards)?;
    eprintln!(
        "merged {} shard manifests of {} worlds -> {}",
        summary.shards,
        summary.worlds,
        args.dir.join(dataset::MANIFEST).display()
    );
    Ok(())
}
