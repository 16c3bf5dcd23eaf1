//! Autotune's choices: kept per class of descriptor on a device, and written
//! and read as text so that a later run times nothing it timed before.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use super::{Choice, Class};
use crate::bounded::Bounded;
use crate::executor::gpu::Gpu;
use crate::kernels::tuning::Tuning;
use crate::kernels::variant::Variant;

/// Classes a device keeps a choice for, the least recently used dropped past it.
const KEPT_CHOICES: usize = 1024;

/// A device's choices, by class; and those loaded from an earlier run's text
/// ([`Gpu::load_autotune_choices`]), by the digest of their class, until a
/// compile meets the class.
#[derive(Debug)]
pub(crate) struct Choices {
    kept: Mutex<Bounded<Class, Choice>>,
    loaded: Mutex<HashMap<u64, Choice>>,
}

impl Default for Choices {
    fn default() -> Choices {
        Choices {
            kept: Mutex::new(Bounded::new(KEPT_CHOICES)),
            loaded: Mutex::default(),
        }
    }
}

impl Choices {
    pub(super) fn get(&self, class: &Class) -> Option<Choice> {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(choice) = kept.get(class) {
            return Some(*choice);
        }
        let mut loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        let choice = loaded.remove(&class.digest())?;
        Some(*kept.insert(*class, choice))
    }

    pub(super) fn keep(&self, class: Class, choice: Choice) {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.insert(class, choice);
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
const HEADER: &str = "revseq autotune 1";

impl Class {
    /// A digest of the class that lasts across runs of one build: FNV-1a of
    /// its debug text (the text holds every field by name).
    fn digest(&self) -> u64 {
        format!("{self:?}")
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
                (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
            })
    }
}

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
        let choices = self.choices();
        let mut by_digest: HashMap<u64, Choice> = {
            let kept = choices.kept.lock().unwrap_or_else(PoisonError::into_inner);
            kept.iter()
                .map(|(class, choice)| (class.digest(), *choice))
                .collect()
        };
        let loaded = choices
            .loaded
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for (digest, choice) in loaded.iter() {
            by_digest.entry(*digest).or_insert(*choice);
        }
        drop(loaded);
        let mut lines: Vec<String> = by_digest
            .into_iter()
            .map(|(digest, choice)| format!("{digest:016x} {}\n", choice.text()))
            .collect();
        lines.sort();
        self.autotune_header() + &lines.concat()
    }

    /// Takes the choices in `text` ([`Gpu::autotune_choices`] of an earlier
    /// run), so that descriptors of their classes compile without timing:
    /// how many it took. Text made by another version of revseq, on another
    /// adapter or driver, or not in the format is ignored whole, with a
    /// warning logged (the `log` crate), never an error: autotune then times
    /// again. Choices of this run win over loaded ones.
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
        let mut loaded = self
            .choices()
            .loaded
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        loaded.extend(parsed);
        count
    }
}
