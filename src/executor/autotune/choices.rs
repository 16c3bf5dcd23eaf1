//! Autotune's choices: kept per class of descriptor on a device, and written
//! and read as text so that a later run times nothing it timed before.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::bounded::Bounded;
use crate::executor::gpu::Gpu;
use crate::kernels::tuning::Tuning;
use crate::kernels::variant::Variant;
use crate::plan::candidates::{Choice, Class};

/// Classes a device keeps a choice for, made now or loaded, the least
/// recently used dropped past it; and as many classes whose tuning failed.
const KEPT_CHOICES: usize = 1024;

/// A device's choices, by the digest of their class: those made by timing and
/// those loaded from an earlier run's text ([`Gpu::load_autotune_choices`])
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
    pub(super) fn decided(&self, class: &Class) -> Option<Option<Choice>> {
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
    pub(super) fn keep(&self, class: Class, choice: Choice) {
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
    pub(super) fn fail(&self, class: Class) {
        let digest = class.digest();
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.remove(&digest);
        drop(kept);
        let mut failed = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
        failed.insert(digest, ());
    }

    pub(super) fn count_tuning(&self) {
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

impl Choice {
    pub(super) fn text(self) -> String {
        let tuning = match self.tuning {
            Tuning::Cpu => "cpu",
            Tuning::Gpu => "gpu",
        };
        let variant = self.variant.map_or("static", Variant::name);
        format!("{tuning} {variant}")
    }

    fn parse(tuning: &str, variant: &str) -> Option<Choice> {
        let tuning = match tuning {
            "cpu" => Tuning::Cpu,
            "gpu" => Tuning::Gpu,
            _ => return None,
        };
        let variant = match variant {
            "static" => None,
            name => Some(*Variant::FAMILIES.iter().find(|v| v.name() == name)?),
        };
        Some(Choice { tuning, variant })
    }
}

impl Gpu {
    /// What the choices were made for: this build of revseq on this adapter
    /// and driver. Choices made for anything else are not taken.
    fn autotune_header(&self) -> String {
        let info = self.adapter_info();
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

    /// Autotune's choices on this device, as text a later run gives
    /// [`Gpu::load_autotune_choices`] so that it times nothing it timed
    /// before: a header naming revseq's version, the adapter and the driver,
    /// then a line a class of descriptor. Save it where you keep a cache:
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let gpu = revseq::Gpu::new()?;
    /// let path = std::env::temp_dir().join("revseq-autotune.txt");
    /// if let Ok(text) = std::fs::read_to_string(&path) {
    ///     gpu.load_autotune_choices(&text);
    /// }
    /// // ... compile and run ...
    /// std::fs::write(&path, gpu.autotune_choices())?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn autotune_choices(&self) -> String {
        let kept = self.choices().kept.lock();
        let kept = kept.unwrap_or_else(PoisonError::into_inner);
        let mut lines: Vec<String> = kept
            .iter()
            .map(|(digest, choice)| format!("{digest:016x} {}\n", choice.text()))
            .collect();
        drop(kept);
        lines.sort();
        self.autotune_header() + &lines.concat()
    }

    /// Takes the choices in `text` ([`Gpu::autotune_choices`] of an earlier
    /// run), so that descriptors of their classes compile without timing:
    /// how many it took. Text made by another version of revseq, on another
    /// adapter or driver, or not in the format is ignored whole, with a
    /// warning logged (the `log` crate), never an error: autotune then times
    /// again. Choices of this run win over loaded ones. A device keeps at most
    /// 1,024 choices, made or loaded, the least recently used dropped past it.
    pub fn load_autotune_choices(&self, text: &str) -> usize {
        let header = self.autotune_header();
        let Some(body) = text.strip_prefix(&header) else {
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
        let kept = self.choices().kept.lock();
        let kept = &mut kept.unwrap_or_else(PoisonError::into_inner);
        for (digest, choice) in parsed {
            kept.insert(digest, choice);
        }
        count
    }
}
