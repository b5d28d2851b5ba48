//! `fabula mcp`: an MCP server over stdio bound to one world and one session, for agent hosts
//! that start their tools as child processes.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

/// Arguments of `fabula mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The dataset directory (holding manifest.json).
    #[arg(long, default_value = "worlds/default")]
    pub worlds: PathBuf,
    /// The world the session searches.
    #[arg(long)]
    pub world: u32,
    /// The seed of the session's controls.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The session's controls as a JSON object, as `POST /v1/sessions` takes them, e.g.
    /// '{"noise_level": 0.5}'.
    #[arg(long)]
    pub controls: Option<String>,
    /// The tools: Qwen-AgentWorld's `web_search`, `web_extractor` and `dict_memory`
    /// (`agentworld`), the `search` and `fetch` of OpenAI's deep research (`deep-research`),
    /// BrowseComp-Plus's `search` and `get_document` (`browsecomp-plus`), or Tongyi
    /// DeepResearch's `search` and `visit` (`tongyi`).
    #[arg(long, value_enum, default_value_t = Tools::Agentworld)]
    pub tools: Tools,
    /// Which renderer writes search and extract observations (`lwm` needs --model, or
    /// --world-model-url and --world-model-name), as on `fabula serve`.
    #[arg(long, value_enum, default_value = "template")]
    pub renderer: crate::wm::RendererName,
    #[command(flatten)]
    pub lwm: crate::wm::ModelArgs,
}

/// The tool sets of `fabula mcp --tools`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Tools {
    /// web_search, web_extractor and dict_memory.
    Agentworld,
    /// search and fetch.
    DeepResearch,
    /// search and get_document.
    BrowsecompPlus,
    /// search and visit.
    Tongyi,
}

/// Runs `fabula mcp` until the client closes stdin. Logs go to stderr; stdout carries only MCP.
pub fn run_mcp(args: &McpArgs) -> anyhow::Result<()> {
    let controls = match &args.controls {
        Some(text) => {
            serde_json::from_str(text).context("--controls must be a JSON object of controls")?
        }
        None => fabula_server::controls::ControlsRequest::default(),
    };
    let config = fabula_server::ServeConfig {
        worlds: args.worlds.clone(),
        lwm: crate::wm::serve_lwm(args.renderer, &args.lwm)?,
        ..Default::default()
    };
    let state = fabula_server::AppState::open(&config)
        .with_context(|| format!("opening {}", args.worlds.display()))?;
    let request = fabula_server::sessions::CreateSessionRequest {
        world: args.world,
        seed: args.seed,
        controls,
    };
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?
        .block_on(fabula_mcp::serve_stdio(
            state,
            request,
            match args.tools {
                Tools::Agentworld => fabula_mcp::ToolSet::AgentWorld,
                Tools::DeepResearch => fabula_mcp::ToolSet::DeepResearch,
                Tools::BrowsecompPlus => fabula_mcp::ToolSet::BrowseCompPlus,
                Tools::Tongyi => fabula_mcp::ToolSet::Tongyi,
            },
        ))
        .context("serving MCP over stdio")?;
    Ok(())
}
