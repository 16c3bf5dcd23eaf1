//! Windowed dispatch: tensors larger than one storage binding, or than the 2^32
//! bytes a kernel's u32 offsets reach, run as several dispatches, each binding a
//! window (offset + size) of each buffer.
//!
//! The output is cut into pieces along the canonical layout: the largest suffix of
//! its dimensions whose output and lengths spans fit one window, with as many
//! positions of the dimension above it as fit; the dimensions further out are
//! fixed per piece. Every output element lies in exactly one piece, and a piece's
//! offsets, relative to its origin, fit a u32.
//!
//! A piece's sources lie in the input region its other coordinates select, over
//! the whole axis: the lane's length, read on the device, picks the position. When
//! that region fits one window, one dispatch writes the whole piece, with any kernel
//! variant. When it does not (the axis spans more than a window), there are three
//! ways, in this order of preference (`docs/windows.md` has their measurements):
//!
//! - Pairs (`runs` where the tuning walks it, `tuning::walks_windows`, and `rows` for
//!   lanes longer than a window): pieces of whole axis positions, each paired with
//!   the input windows of whole positions it may read. In each pair, `runs` walks
//!   the positions whose source that window holds, run by run or lane by lane;
//!   `rows/window.wgsl` writes the vectors whose sources the window owns (a lane's
//!   windows bind one vector past what they own, and a piece's windows run
//!   downwards: see the kernel). Each byte moves once, and nothing else is
//!   touched. No copies; dispatches grow with the square of the windows an axis
//!   spans (W(W+1)/2 at most), though only those a length gives work write, and
//!   the others cost a length load per lane.
//! - Staging ([`Staging`]): pieces that hold the whole axis, whose every position
//!   is one contiguous segment of input and of output. `record` copies the input
//!   segments into a scratch buffer, runs the piece there with any variant, and
//!   copies the output segments back, with a copy kernel on storage bindings, a
//!   dispatch per window of segments ([`Batch`]): linear in the tensor, at the
//!   price of two copies of it. Two scratch buffers, each at most one window.
//! - Scanning pairs: anything else (lanes not whole words, strided or
//!   interleaved positions, narrow elements at odd offsets): the piece runs once
//!   per input window that may hold its sources, each dispatch writing only the
//!   elements whose source lies in its window. A source lies in exactly one
//!   window, so every element is still written exactly once. An element a
//!   dispatch skips keeps its bytes: the 1- and 2-byte kernel merges the elements
//!   it writes into the words it stores, and the dispatches of one compute pass
//!   run in order, each seeing the writes of those before it. Only the general
//!   kernels run these; each dispatch visits its whole piece.
//!
//! Input windows hold whole axis positions where one position's sources end
//! before the next position's begin: a source's position then names its window,
//! and windows that no output position of the piece can read from are not
//! dispatched. Where positions interleave, windows are ranges of input offsets from
//! the piece's origin.

mod across;
mod geometry;
mod outline;
mod staged;
#[cfg(test)]
mod tests;

use crate::descriptor::error::{Error, InPlaceRule};
use crate::descriptor::layout::Layout;
use crate::descriptor::Mode;
use across::across;
use outline::outline;
use staged::staged;

/// The most dispatches one operator records. Pieces are as large as a window
/// allows, so only strides that scatter a tensor over far more memory than it
/// holds come near it.
pub(crate) const MAX_DISPATCHES: usize = 1 << 16;

/// The most bytes a kernel addresses in one binding: its offsets are u32 counts of
/// bytes.
pub(crate) const MAX_WINDOW_BYTES: u64 = u32::MAX as u64 & !3;

/// A byte range of one of the caller's bindings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    pub(crate) offset: u64,
    pub(crate) size: u64,
}

/// One dispatch: a piece of the output and the windows it binds.
#[derive(Clone, Debug)]
pub(crate) struct Piece {
    /// The piece, with offsets relative to its origin in each tensor. When the piece
    /// holds a single position of an axis cut further out, the axis is its first
    /// dimension, of size 1.
    pub(crate) layout: Layout,
    /// Input, sequence lengths and output, relative to the caller's bindings.
    pub(crate) windows: [Window; 3],
    /// Elements from the start of each window to the piece's origin. The input's
    /// wraps (mod 2^32) where a window starts past the origin: the kernel adds it to
    /// offsets that lie in the window, so the sum is exact.
    pub(crate) shifts: [u32; 3],
    /// The axis position of the piece's first position along the axis.
    pub(crate) axis_start: u32,
    /// The axis positions [lo, hi) of the sources this dispatch writes.
    pub(crate) positions: [u32; 2],
    /// The input offsets [lo, hi) of the sources this dispatch writes, relative to
    /// the origin of position `positions[0]` in the piece.
    pub(crate) sources: [u32; 2],
    /// Whether the piece holds the whole axis and one window all its sources, so
    /// that any kernel variant can run it.
    pub(crate) whole: bool,
    /// Whether the dispatch's sources are chosen by axis position alone, so that
    /// a family that moves whole runs of one position can run it.
    pub(crate) by_position: bool,
    /// Whether the piece is a pair of groups of positions in place across
    /// windows (`across.rs`): the cut decides it, the planner reads it.
    pub(crate) across: bool,
    /// What the input binding holds.
    pub(crate) input: InputBinding,
    /// Where the piece's input and output are staged through scratch buffers: the
    /// input and output windows are then ranges of the scratch buffers.
    pub(crate) staging: Option<Staging>,
}

/// What a dispatch binds at the input's place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InputBinding {
    /// The caller's input: out of place.
    Input,
    /// A placeholder of [`PLACEHOLDER_BYTES`]: in place, where every pair lies
    /// in the output window (a buffer may not be bound read-only and writable in
    /// one dispatch).
    Placeholder,
    /// A second window of the tensor, apart from the output window: in place
    /// across windows (`across.rs`), the pairs' back ends, the output window
    /// holding their front ends.
    Tensor,
}

impl InputBinding {
    /// What a piece binds at the input's place in `mode`, with its window and
    /// shift: out of place the caller's input, `input` (the window that holds
    /// the piece's sources and their shift from its start); in place the
    /// placeholder, where every pair lies in the output window.
    pub(super) fn of(mode: Mode, input: (Window, u32)) -> (InputBinding, Window, u32) {
        match mode {
            Mode::OutOfPlace => (InputBinding::Input, input.0, input.1),
            Mode::InPlace => {
                let placeholder = Window {
                    offset: 0,
                    size: PLACEHOLDER_BYTES,
                };
                (InputBinding::Placeholder, placeholder, 0)
            }
        }
    }
}

/// Bytes of the placeholder an in-place dispatch binds at the input's place:
/// one 16-byte vector, the least any kernel's input binding may hold.
pub(crate) const PLACEHOLDER_BYTES: u64 = 16;

/// What the family chosen for the whole layout needs of the cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cut {
    /// Out of place ([`split`]); pieces of whole positions may pair with input
    /// windows where the family walks them (`walk_windows`).
    OutOfPlace { walk_windows: bool },
    /// In place ([`in_place`]).
    InPlace,
}

/// A staged piece: it holds the whole axis, and each axis position's input and
/// output are one contiguous segment of the caller's buffers. `record` copies
/// the input segments into the input scratch buffer, one after the other, runs
/// the piece there (every source in one window, so any kernel variant), and
/// copies the output segments back, with the staging copy kernel
/// (`src/kernels/copy.rs`), one dispatch per batch of segments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Staging {
    /// Axis positions: segments of each tensor.
    pub(crate) positions: u32,
    /// The input's segments.
    pub(crate) input: Segments,
    /// The output's segments: exactly the piece's output elements, no other bytes.
    pub(crate) output: Segments,
    /// The copy dispatches of the input's segments and of the output's.
    pub(crate) batches: [Vec<Batch>; 2],
}

/// Segments of one tensor, `positions` of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segments {
    /// Bytes from the caller's binding to the first segment.
    pub(crate) origin: u64,
    /// Bytes from one segment to the next in the caller's binding.
    pub(crate) stride: u64,
    /// Bytes of one segment: whole 32-bit words, which the copy kernel moves.
    pub(crate) bytes: u64,
    /// Bytes from one segment to the next in scratch: `bytes`, or more where the
    /// piece is padded to whole vectors.
    pub(crate) pitch: u64,
}

/// Consecutive segments of one tensor that one copy dispatch moves: their span
/// of the caller's binding fits one window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Batch {
    /// The first segment.
    pub(crate) first: u32,
    /// Segments in the batch.
    pub(crate) count: u32,
    /// The window of the caller's binding that holds them, from the alignment
    /// at or before the first.
    pub(crate) window: Window,
}

/// Whether every tensor, `bytes` long, fits one binding of `binding` bytes, or the
/// tensor has no elements: one dispatch binds them whole.
pub(crate) fn fits_one_binding(layout: &Layout, bytes: [u64; 3], binding: u64) -> bool {
    layout.element_count() == 0 || bytes.iter().all(|b| b.next_multiple_of(4) <= binding)
}

/// The one dispatch of a tensor that fits one binding ([`fits_one_binding`]):
/// every tensor, `bytes` long, bound whole (in place, the placeholder at the
/// input's place).
pub(crate) fn whole(layout: &Layout, bytes: [u64; 3], mode: Mode) -> Piece {
    let mut windows = bytes.map(|b| Window {
        offset: 0,
        size: b.next_multiple_of(4),
    });
    let (input, window, shift) = InputBinding::of(mode, (windows[0], 0));
    windows[0] = window;
    Piece {
        layout: layout.clone(),
        windows,
        shifts: [shift, 0, 0],
        axis_start: 0,
        positions: [0, u32::MAX],
        sources: [0, u32::MAX],
        whole: true,
        by_position: true,
        across: false,
        input,
        staging: None,
    }
}

/// Cuts the operator on `layout` as `cut` asks: the dispatches, or in place
/// the rule the tensor breaks where no cut exists. `widths` are the bytes per
/// element of input, sequence lengths and output, `bytes` their tensors' sizes;
/// `binding` is the most bytes one binding may hold (whole words, within
/// [`MAX_WINDOW_BYTES`]: `Target::binding`) and `align` the storage offset
/// alignment.
pub(crate) fn cut(
    layout: &Layout,
    widths: [u64; 3],
    bytes: [u64; 3],
    binding: u64,
    align: u64,
    cut: Cut,
) -> Result<Result<Vec<Piece>, InPlaceRule>, Error> {
    debug_assert!(binding.is_multiple_of(4) && binding <= MAX_WINDOW_BYTES);
    match cut {
        Cut::OutOfPlace { walk_windows } => {
            split(layout, widths, bytes, binding, align, walk_windows).map(Ok)
        }
        Cut::InPlace => in_place(layout, widths, bytes, binding, align),
    }
}

/// In place (`docs/in-place.md`): one dispatch binding the tensor whole where
/// it fits a binding; else the tensor's pieces that each hold whole lanes
/// within one window, one dispatch each, binding the piece's window of the
/// tensor through the output binding (input and output share strides, so a
/// piece holding its whole axis reads nothing outside its own window); where a
/// lane, with the dimensions inside the axis, spans more than a window, pairs
/// of groups of its positions (`across.rs`). The rule the tensor breaks where
/// neither cut exists.
fn in_place(
    layout: &Layout,
    widths: [u64; 3],
    bytes: [u64; 3],
    binding: u64,
    align: u64,
) -> Result<Result<Vec<Piece>, InPlaceRule>, Error> {
    if fits_one_binding(layout, bytes, binding) {
        return Ok(Ok(vec![whole(layout, bytes, Mode::InPlace)]));
    }
    let outline = outline(layout, widths, bytes, binding, align);
    if let Ok(outline) = &outline {
        if outline.reach().whole {
            return outline.paired(Mode::InPlace).map(Ok);
        }
    }
    match across(layout, widths, binding, align)? {
        // No lane has two positions: nothing to swap, as in a tensor without
        // elements, one dispatch with no work.
        Ok(pieces) if pieces.is_empty() => Ok(Ok(vec![whole(layout, bytes, Mode::InPlace)])),
        Ok(pieces) => Ok(Ok(pieces)),
        Err(rule) => outline.map(|_| Err(rule)),
    }
}

/// Cuts the operator on `layout` into pieces, and those into dispatches. `widths`
/// are the bytes per element of input, sequence lengths and output, `bytes` their
/// tensors' sizes; `binding` is the most bytes one binding may hold and `align` the
/// storage offset alignment. One dispatch, binding every tensor whole, where they
/// all fit ([`fits_one_binding`]). Pieces of whole positions may pair with input
/// windows where `walk_windows` (the kernel walks them).
fn split(
    layout: &Layout,
    widths: [u64; 3],
    bytes: [u64; 3],
    binding: u64,
    align: u64,
    walk_windows: bool,
) -> Result<Vec<Piece>, Error> {
    // A tensor without elements binds nothing, however far its lengths or strides
    // reach: one dispatch with no work, which `record` skips.
    if fits_one_binding(layout, bytes, binding) {
        return Ok(vec![whole(layout, bytes, Mode::OutOfPlace)]);
    }
    let outline = outline(layout, widths, bytes, binding, align);
    // Pieces whose sources fit one window; or, for a kernel that walks a piece's
    // positions, pieces of whole positions paired with input windows of whole
    // positions (each run moved once, by the pair whose window holds its source).
    let mut paired = None;
    if let Ok(outline) = &outline {
        let reach = outline.reach();
        if reach.whole || (walk_windows && reach.by_position) {
            match outline.paired(Mode::OutOfPlace) {
                Ok(pieces) => return Ok(pieces),
                error => paired = Some(error),
            }
        }
    }
    // Pieces whose sources span several windows: staged where their segments
    // allow it (linear in the tensor, and any kernel variant), else paired with
    // each input window in turn.
    match staged(layout, widths, binding, align) {
        Some(pieces) => Ok(pieces),
        None => paired.unwrap_or_else(|| outline.and_then(|o| o.paired(Mode::OutOfPlace))),
    }
}
