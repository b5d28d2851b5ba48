//! The episodes of the episode API, kept in memory: each episode's session, task, step count and
//! outcome, the oldest forgotten beyond [`MAX_EPISODES`]; and the OpenEnv routes' bookkeeping.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use parking_lot::Mutex;
use tokio::sync::Semaphore;

use crate::wire::EpisodeState;

/// The most episodes kept; the oldest is forgotten beyond it.
pub const MAX_EPISODES: usize = 10_000;
/// The most OpenEnv WebSocket connections open at once.
pub const MAX_CONNECTIONS: usize = 1_024;

/// One episode.
#[derive(Debug, Clone)]
pub(crate) struct Episode {
    pub id: String,
    pub world: u32,
    pub seed: u64,
    pub task_id: Option<String>,
    pub session: String,
    pub n_steps: u64,
    pub done: bool,
    pub reward: Option<f64>,
}

impl Episode {
    /// The episode as `GET /v1/env/state` shows it.
    pub(crate) fn state(&self) -> EpisodeState {
        EpisodeState {
            done: self.done,
            episode_id: self.id.clone(),
            reward: self.reward,
            seed: self.seed,
            session: self.session.clone(),
            step_count: self.n_steps,
            task_id: self.task_id.clone(),
            world: self.world,
        }
    }
}

/// The episodes held by the admin listener, in creation order.
#[derive(Debug, Default)]
pub(crate) struct Episodes {
    n_created: u64,
    pub by_id: HashMap<String, Episode>,
    pub order: VecDeque<String>,
}

impl Episodes {
    /// Keeps a new episode on `session` under a fresh id, forgetting the oldest beyond
    /// [`MAX_EPISODES`]; returns the id.
    pub(crate) fn insert(
        &mut self,
        world: u32,
        seed: u64,
        task_id: Option<String>,
        session: String,
    ) -> String {
        let id = format!("e{}-{session}", self.n_created);
        self.n_created += 1;
        let episode = Episode {
            id: id.clone(),
            world,
            seed,
            task_id,
            session,
            n_steps: 0,
            done: false,
            reward: None,
        };
        self.by_id.insert(id.clone(), episode);
        self.order.push_back(id.clone());
        while self.order.len() > MAX_EPISODES {
            if let Some(oldest) = self.order.pop_front() {
                self.by_id.remove(&oldest);
            }
        }
        id
    }

    /// Forgets an episode (its connection ended); returns it when it was still held.
    pub(crate) fn remove(&mut self, episode_id: &str) -> Option<Episode> {
        let episode = self.by_id.remove(episode_id)?;
        self.order.retain(|id| id != episode_id);
        Some(episode)
    }
}

/// The episode store shared by the handlers.
pub(crate) type EpisodeStore = Arc<Mutex<Episodes>>;

/// What the OpenEnv routes share: the reset counter, the latest HTTP episode and the
/// connection slots.
pub(crate) struct OpenEnvState {
    pub n_resets: AtomicU64,
    pub latest: Mutex<Option<String>>,
    pub connections: Arc<Semaphore>,
}

impl Default for OpenEnvState {
    fn default() -> OpenEnvState {
        OpenEnvState {
            n_resets: AtomicU64::new(0),
            latest: Mutex::new(None),
            connections: Arc::new(Semaphore::new(MAX_CONNECTIONS)),
        }
    }
}
