//! A one-shot channel whose receiving end is a future: how a wgpu callback (the
//! completion of `map_async`) reaches async code without blocking a thread. In a
//! browser the callback runs on the event loop and wakes the awaiting task.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

struct Slot<T> {
    value: Option<T>,
    waker: Option<Waker>,
    /// The sender was dropped without sending.
    closed: bool,
}

/// The sending end; dropping it unsent resolves the receiver to `None`.
pub(crate) struct Sender<T>(Arc<Mutex<Slot<T>>>);

/// Resolves to the value sent, or `None` if the sender is dropped first.
pub(crate) struct Receiver<T>(Arc<Mutex<Slot<T>>>);

pub(crate) fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let slot = Arc::new(Mutex::new(Slot {
        value: None,
        waker: None,
        closed: false,
    }));
    (Sender(slot.clone()), Receiver(slot))
}

impl<T> Sender<T> {
    pub(crate) fn send(self, value: T) {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        slot.value = Some(value);
        // `Drop` wakes the receiver.
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let waker = {
            let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            slot.closed = true;
            slot.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Receiver<T> {
    /// Whether the receiver would resolve now: a value was sent, or the sender
    /// dropped.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn is_ready(&self) -> bool {
        let slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        slot.value.is_some() || slot.closed
    }
}

impl<T> Future for Receiver<T> {
    type Output = Option<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(value) = slot.value.take() {
            Poll::Ready(Some(value))
        } else if slot.closed {
            Poll::Ready(None)
        } else {
            slot.waker = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}
