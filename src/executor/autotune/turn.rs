//! One tuning of a class at a time on a device: a compile that meets a class
//! another compile is tuning on the same device, through any [`Gpu`] of it,
//! waits for that tuning to end rather than time its candidates beside it
//! (each would time the other's work, and both would allocate their buffers).
//! A thread that holds the device's lock (GL) does not wait, since the tuning
//! may need that lock: it runs the static plan meanwhile.
//!
//! [`Gpu`]: crate::Gpu

#[cfg(not(target_arch = "wasm32"))]
use std::sync::{Condvar, Mutex, PoisonError};

use super::Class;

/// The classes being tuned, with their devices.
#[cfg(not(target_arch = "wasm32"))]
static TUNING: Mutex<Vec<(wgpu::Device, Class)>> = Mutex::new(Vec::new());
#[cfg(not(target_arch = "wasm32"))]
static ENDED: Condvar = Condvar::new();

/// A class's turn to be tuned on a device: taken once no other compile tunes
/// it there, given back when dropped.
#[cfg(not(target_arch = "wasm32"))]
pub(super) struct Turn {
    device: wgpu::Device,
    class: Class,
}

/// In a browser autotune is off (nothing may block): no turn is taken.
#[cfg(target_arch = "wasm32")]
pub(super) struct Turn;

#[cfg(target_arch = "wasm32")]
impl Turn {
    pub(super) fn take(_device: &wgpu::Device, _class: Class, _wait: bool) -> Option<Turn> {
        Some(Turn)
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Turn {
    /// Waits until no compile tunes `class` on `device`, then takes the turn;
    /// where another compile tunes it and `wait` is false, `None`. A tuning is
    /// bounded (its rounds, and the device's own timeouts), so the wait is too.
    pub(super) fn take(device: &wgpu::Device, class: Class, wait: bool) -> Option<Turn> {
        let tuning = |list: &Vec<(wgpu::Device, Class)>| {
            list.iter().any(|(d, c)| d == device && *c == class)
        };
        let mut list = TUNING.lock().unwrap_or_else(PoisonError::into_inner);
        while tuning(&list) {
            if !wait {
                return None;
            }
            list = ENDED.wait(list).unwrap_or_else(PoisonError::into_inner);
        }
        list.push((device.clone(), class));
        Some(Turn {
            device: device.clone(),
            class,
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Drop for Turn {
    fn drop(&mut self) {
        let mut list = TUNING.lock().unwrap_or_else(PoisonError::into_inner);
        list.retain(|(d, c)| !(*d == self.device && *c == self.class));
        drop(list);
        ENDED.notify_all();
    }
}
