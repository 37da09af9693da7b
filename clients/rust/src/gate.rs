//! How a run is driven: from the command line (Ctrl-C stops it, it starts at once) or by the
//! agent (a coordinator's stop, a start barrier at an instant, a part of the clients).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{oneshot, watch};

/// An agent's hold on a run: which clients (global indices `lo..hi`) this part runs, the
/// barrier every client waits at once connected and subscribed, and the coordinator's stop.
pub struct Gate {
    pub lo: usize,
    pub hi: usize,
    /// Sent once every client is connected and subscribed (the prepare's answer).
    pub ready: oneshot::Sender<()>,
    /// The start instant (Unix ns, this machine's clock); dropped: the run is stopped.
    pub start: oneshot::Receiver<i64>,
    /// Becomes true when the coordinator stops the run (or the agent ends).
    pub stop: watch::Receiver<bool>,
    /// What the agent reads while the run runs (progress, intervals, clock skew).
    pub probe: crate::live::Probe,
}

/// The part of a run a Gate leaves to the clients once they are released.
pub struct Hold {
    ready: oneshot::Sender<()>,
    start: oneshot::Receiver<i64>,
}

impl Gate {
    /// Splits the gate: the clients' range, the barrier, the stop signal and the probe.
    pub fn split(
        self,
    ) -> (
        std::ops::Range<usize>,
        Hold,
        watch::Receiver<bool>,
        crate::live::Probe,
    ) {
        (
            self.lo..self.hi,
            Hold {
                ready: self.ready,
                start: self.start,
            },
            self.stop,
            self.probe,
        )
    }
}

impl Hold {
    /// Says the clients are ready, then waits for the start instant (an instant already past
    /// starts at once). Err when the run is stopped before it starts.
    pub async fn release(self) -> Result<(), String> {
        let _ = self.ready.send(());
        let at = self
            .start
            .await
            .map_err(|_| "stopped before it started".to_string())?;
        let now = crate::clock::Clock::new().now();
        if at > now {
            tokio::time::sleep(Duration::from_nanos((at - now) as u64)).await;
        }
        Ok(())
    }
}

/// Ends the run when asked: Ctrl-C on the command line, the agent's stop signal otherwise.
pub fn on_stop(
    agent_stop: Option<watch::Receiver<bool>>,
    interrupted: Arc<AtomicBool>,
    stop_tx: watch::Sender<bool>,
) {
    tokio::spawn(async move {
        let asked = match agent_stop {
            Some(mut rx) => loop {
                if *rx.borrow() {
                    break true;
                }
                if rx.changed().await.is_err() {
                    break true; // the agent dropped the run
                }
            },
            None => tokio::signal::ctrl_c().await.is_ok(),
        };
        if asked {
            interrupted.store(true, Ordering::SeqCst);
            let _ = stop_tx.send(true);
        }
    });
}
