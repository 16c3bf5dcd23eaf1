//! Autotune's choices: kept per class of descriptor on a device, and written
//! and read as text so that a later run times nothing it timed before.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::bounded::Bounded;
use crate::plan::candidates::Class;
use crate::plan::target::Choice;

/// Classes a device keeps a choice for, made now or loaded, the least
/// recently used dropped past it; and as many classes whose tuning failed.
const KEPT_CHOICES: usize = 1024;

/// A device's choices, by the digest of their class: those made by timing and
/// those loaded from an earlier run's text ([`Gpu::load_autotune_choices`](crate::Gpu::load_autotune_choices))
/// in one bounded map, so that what the text saves is what a compile takes;
/// and the classes whose tuning failed, which run the static plan untimed.
#[derive(Debug)]
pub(crate) struct Choices {
    kept: Mutex<Bounded<u64, Choice>>,
    failed: Mutex<Bounded<u64, ()>>,
    /// Tunings started.
    tunings: AtomicUsize,
}

impl Default for Choices {
    fn default() -> Choices {
        Choices {
            kept: Mutex::new(Bounded::new(KEPT_CHOICES)),
            failed: Mutex::new(Bounded::new(KEPT_CHOICES)),
            tunings: AtomicUsize::new(0),
        }
    }
}

impl Choices {
    /// What is decided for `class`: `Some(Some(choice))` where a choice is
    /// kept, `Some(None)` where its tuning failed (the static plan), `None`
    /// where nothing is.
    pub(crate) fn decided(&self, class: &Class) -> Option<Option<Choice>> {
        let digest = class.digest();
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(choice) = kept.get(&digest) {
            return Some(Some(*choice));
        }
        drop(kept);
        let mut failed = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
        failed.get(&digest).map(|()| None)
    }

    /// Keeps `choice` for `class`, unless its tuning failed.
    pub(crate) fn keep(&self, class: Class, choice: Choice) {
        let digest = class.digest();
        let mut failed = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
        if failed.get(&digest).is_some() {
            return;
        }
        drop(failed);
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.insert(digest, choice);
    }

    /// `class`'s tuning failed: it runs the static plan untimed from now on,
    /// whatever was kept for it.
    pub(crate) fn fail(&self, class: Class) {
        let digest = class.digest();
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.remove(&digest);
        drop(kept);
        let mut failed = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
        failed.insert(digest, ());
    }

    pub(crate) fn count_tuning(&self) {
        self.tunings.fetch_add(1, Ordering::Relaxed);
    }

    /// Tunings started.
    #[cfg(feature = "lab")]
    pub(crate) fn tunings(&self) -> usize {
        self.tunings.load(Ordering::Relaxed)
    }

    /// Classes with a kept choice.
    #[cfg(feature = "lab")]
    pub(crate) fn len(&self) -> usize {
        self.kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// The first line of the choices' text, with its format's version.
const HEADER: &str = "revseq autotune 2";

/// What choices were made for: this build of revseq on the adapter and
/// driver `info` names. Choices made for anything else are not taken.
fn header(info: &wgpu::AdapterInfo) -> String {
    format!(
        "{HEADER}\nrevseq {}\nadapter {} ({:?}, {:?})\ndriver {} {}\n",
        env!("CARGO_PKG_VERSION"),
        info.name,
        info.backend,
        info.device_type,
        info.driver,
        info.driver_info
    )
}

impl Choices {
    /// The kept choices as text ([`Gpu::autotune_choices`](crate::Gpu::autotune_choices)),
    /// for the adapter `info` names: the header, then a line a class.
    pub(crate) fn text(&self, info: &wgpu::AdapterInfo) -> String {
        let kept = self.kept.lock();
        let kept = kept.unwrap_or_else(PoisonError::into_inner);
        let mut lines: Vec<String> = kept
            .iter()
            .map(|(digest, choice)| format!("{digest:016x} {}\n", choice.text()))
            .collect();
        drop(kept);
        lines.sort();
        header(info) + &lines.concat()
    }

    /// Takes the choices in `text`, made on the adapter `info` names
    /// ([`Gpu::load_autotune_choices`](crate::Gpu::load_autotune_choices)):
    /// how many it took; none, with a warning, from text of another build,
    /// adapter or driver, or not in the format.
    pub(crate) fn load(&self, info: &wgpu::AdapterInfo, text: &str) -> usize {
        let Some(body) = text.strip_prefix(&header(info)) else {
            let reason = match text.starts_with(HEADER) {
                true => "made by another build of revseq, adapter or driver",
                false => "not revseq's autotune choices",
            };
            log::warn!("revseq: autotune choices ignored: {reason}");
            return 0;
        };
        let parsed: Option<Vec<(u64, Choice)>> = body
            .lines()
            .map(|line| {
                let mut fields = line.split(' ');
                let digest = u64::from_str_radix(fields.next()?, 16).ok()?;
                let choice = Choice::parse(fields.next()?, fields.next()?)?;
                fields.next().is_none().then_some((digest, choice))
            })
            .collect();
        let Some(parsed) = parsed else {
            log::warn!("revseq: autotune choices ignored: a line is not a choice");
            return 0;
        };
        let count = parsed.len();
        let kept = self.kept.lock();
        let kept = &mut kept.unwrap_or_else(PoisonError::into_inner);
        for (digest, choice) in parsed {
            kept.insert(digest, choice);
        }
        count
    }
}
