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
//! - Pairs (`runs` where the tuning walks it, `tuning::walks_pairs`, and `rows` for
//!   lanes longer than a window): pieces of whole axis positions, each paired with
//!   the input windows of whole positions it may read. In each pair, `runs` walks
//!   the positions whose source that window holds, run by run or lane by lane;
//!   `rows/pairs.wgsl` writes the vectors whose sources the window owns (a lane's
//!   windows bind one vector past what they own, and a piece's windows run
//!   downwards: see the kernel). Each byte moves once, and nothing else is
//!   touched. No copies; dispatches grow with the square of the windows an axis
//!   spans (W(W+1)/2 at most), though only those a length gives work write, and
//!   the others cost a length load per lane.
//! - Staging ([`Staging`]): pieces that hold the whole axis, whose every position
//!   is one contiguous segment of input and of output. `record` copies the input
//!   segments into a scratch buffer, runs the piece there with any variant, and
//!   copies the output segments back: one dispatch a piece, linear in the tensor,
//!   at the price of two buffer copies of it. Two scratch buffers, each at most
//!   one window.
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

use crate::layout::{Dim, Layout};
use crate::{Error, TensorRole};

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
pub(crate) struct Dispatch {
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
    /// `Runs`, which moves whole runs of one position, can run it.
    pub(crate) by_position: bool,
    /// Where the piece's input and output are staged through scratch buffers: the
    /// input and output windows are then ranges of the scratch buffers.
    pub(crate) staging: Option<Staging>,
}

/// A staged piece: it holds the whole axis, and each axis position's input and
/// output are one contiguous segment of the caller's buffers. `record` copies
/// the input segments into the input scratch buffer, one after the other, runs
/// the piece there (every source in one window, so any kernel variant), and
/// copies the output segments back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Staging {
    /// Axis positions: segments of each tensor.
    pub(crate) positions: u32,
    /// The input's segments.
    pub(crate) input: Segments,
    /// The output's segments: exactly the piece's output elements, no other bytes.
    pub(crate) output: Segments,
}

/// Segments of one tensor, `positions` of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segments {
    /// Bytes from the caller's binding to the first segment.
    pub(crate) origin: u64,
    /// Bytes from one segment to the next in the caller's binding.
    pub(crate) stride: u64,
    /// Bytes of one segment: a multiple of 4, as buffer copies need.
    pub(crate) bytes: u64,
    /// Bytes from one segment to the next in scratch: `bytes`, or more where the
    /// piece is padded to whole vectors.
    pub(crate) pitch: u64,
}

/// Cuts the operator on `layout` into dispatches. `widths` are the bytes per
/// element of input, sequence lengths and output, `bytes` their tensors' sizes;
/// `window` is the most bytes one binding may hold and `align` the storage offset
/// alignment. One dispatch, binding every tensor whole, where they all fit.
/// Pieces of whole positions may pair with input windows where `walk_pairs`
/// allows it (the kernel walks them), and stage through scratch where `stage` does.
pub(crate) fn split(
    layout: &Layout,
    widths: [u64; 3],
    bytes: [u64; 3],
    window: u64,
    align: u64,
    walk_pairs: bool,
    stage: bool,
) -> Result<Vec<Dispatch>, Error> {
    let window = window.min(MAX_WINDOW_BYTES) & !3;
    // A tensor without elements binds nothing, however far its lengths or strides
    // reach: one dispatch with no work, which `record` skips.
    if layout.element_count() == 0 || bytes.iter().all(|b| b.next_multiple_of(4) <= window) {
        return Ok(vec![Dispatch {
            layout: layout.clone(),
            windows: bytes.map(|b| Window {
                offset: 0,
                size: b.next_multiple_of(4),
            }),
            shifts: [0; 3],
            axis_start: 0,
            positions: [0, u32::MAX],
            sources: [0, u32::MAX],
            whole: true,
            by_position: true,
            staging: None,
        }]);
    }
    let paired = pairs(layout, widths, bytes, window, align);
    // Pieces whose sources fit one window; or, for a kernel that walks a piece's
    // positions, pieces of whole positions paired with input windows of whole
    // positions (each run moved once, by the pair whose window holds its source).
    let by_position = |d: &Dispatch| d.whole || (walk_pairs && d.by_position);
    if matches!(&paired, Ok(d) if d.iter().all(by_position)) {
        return paired;
    }
    // Pieces whose sources span several windows: staged where their segments
    // allow it (linear in the tensor, and any kernel variant), else paired with
    // each input window in turn.
    match stage
        .then(|| staged(layout, widths, window, align))
        .flatten()
    {
        Some(dispatches) => Ok(dispatches),
        None => paired,
    }
}

/// Pieces of the output with every input window that may hold their sources:
/// one dispatch each where their sources fit one window.
fn pairs(
    layout: &Layout,
    widths: [u64; 3],
    bytes: [u64; 3],
    window: u64,
    align: u64,
) -> Result<Vec<Dispatch>, Error> {
    let n = layout.dims[layout.axis].size;
    // Window starts are multiples of the alignment and of 16 bytes, so that they
    // fall on a whole element and a whole vector. `room` is what a window holds
    // from any element on, whatever its alignment.
    let align = align.max(16).next_power_of_two();
    let room = window.saturating_sub(align + 4);
    let [in_width, len_width, out_width] = widths;
    let dims = &layout.dims;
    let axis = layout.axis;
    let (cut, group) = cut(layout, room / out_width, room / len_width, room / in_width).ok_or(
        Error::TensorTooLarge {
            tensor: TensorRole::Input,
            bytes: bytes[0],
            limit: u64::from(u32::MAX) * in_width,
            limit_name: "one binding window's 2^32 elements, which one lane's inputs exceed",
        },
    )?;
    // A lane cut into pieces, contiguous in input and output: pieces and input
    // windows of whole 16-byte vectors, each window binding one vector past the
    // positions it owns, so that `rows/pairs.wgsl` finds every span it mirrors in
    // the window that owns the span's lower vector.
    let lane = axis == cut && dims[axis].input == 1 && dims[axis].output == 1;
    let vector = (16 / in_width.max(out_width)).max(1) as u32;
    let group = match lane && group < n && group >= vector {
        true => group / vector * vector,
        false => group,
    };
    let tail = if lane { u64::from(vector) } else { 0 };

    let pieces: u64 = dims[..cut]
        .iter()
        .map(|d| u64::from(d.size))
        .product::<u64>()
        * u64::from(dims[cut].size.div_ceil(group));
    if pieces > MAX_DISPATCHES as u64 {
        return Err(Error::TooManyDispatches {
            dispatches: pieces,
            limit: MAX_DISPATCHES as u64,
        });
    }

    let mut dispatches = Vec::new();
    let mut index = vec![0u32; cut];
    loop {
        let mut first = 0;
        while first < dims[cut].size {
            let size = group.min(dims[cut].size - first);
            let at = |d: usize| if d == cut { first } else { index[d] };
            let origin = |stride: fn(&Dim) -> u64, skip_axis: bool| -> u64 {
                (0..=cut)
                    .filter(|&d| !(skip_axis && d == axis))
                    .map(|d| u64::from(at(d)) * stride(&dims[d]))
                    .sum()
            };
            let origins = [
                origin(|d| d.input, true),
                origin(|d| d.lengths, false),
                origin(|d| d.output, false),
            ];

            let mut piece: Vec<Dim> = dims[cut..].to_vec();
            piece[0].size = size;
            let out_extent = extent(&piece, |d| d.output);
            let piece_axis = if axis < cut {
                // A single position of the axis: the piece's outermost dimension, of
                // size 1, whose output stride nests above the rest.
                piece.insert(
                    0,
                    Dim {
                        size: 1,
                        output: out_extent + 1,
                        input: dims[axis].input,
                        lengths: 0,
                    },
                );
                0
            } else {
                axis - cut
            };
            let piece = Layout {
                axis: piece_axis,
                dims: piece,
            };
            // Input sources span the whole axis.
            let in_extent = piece
                .dims
                .iter()
                .enumerate()
                .map(|(d, dim)| {
                    let size = if d == piece_axis { n } else { dim.size };
                    u64::from(size.saturating_sub(1)) * dim.input
                })
                .sum::<u64>();
            let len_extent = extent(&piece.dims, |d| d.lengths);

            let region = |origin: u64, extent: u64, width: u64| {
                let start = origin * width;
                let offset = start / align * align;
                let end = (origin + extent + 1) * width;
                let shift = ((start - offset) / width) as u32;
                (
                    Window {
                        offset,
                        size: end.next_multiple_of(4) - offset,
                    },
                    shift,
                )
            };
            let (len_window, len_shift) = region(origins[1], len_extent, len_width);
            let (out_window, out_shift) = region(origins[2], out_extent, out_width);
            let (in_window, in_shift) = region(origins[0], in_extent, in_width);
            let axis_start = if axis < cut {
                index[axis]
            } else if axis == cut {
                first
            } else {
                0
            };
            let whole_axis = axis > cut || (axis == cut && size == n);
            let in_axis = piece.dims[piece_axis].input;
            let position_extent = in_extent - u64::from(n.saturating_sub(1)) * in_axis;
            let mut push = |dispatch: Dispatch| {
                dispatches.push(dispatch);
                if dispatches.len() > MAX_DISPATCHES {
                    return Err(Error::TooManyDispatches {
                        dispatches: dispatches.len() as u64,
                        limit: MAX_DISPATCHES as u64,
                    });
                }
                Ok(())
            };
            let dispatch = |input: Window, in_shift: u32, positions, sources, whole| Dispatch {
                layout: piece.clone(),
                windows: [input, len_window, out_window],
                shifts: [in_shift, len_shift, out_shift],
                axis_start,
                positions,
                sources,
                whole,
                by_position: true,
                staging: None,
            };
            let everything = [0, u32::MAX];
            if in_window.size <= window {
                push(dispatch(
                    in_window, in_shift, everything, everything, whole_axis,
                ))?;
            } else if in_axis > position_extent && room / in_width >= in_axis + 2 * tail {
                // Input windows of whole axis positions: a position's sources (all
                // but the axis) come before the next position's.
                // Output positions [t0, t1) read their own positions or, reversed,
                // positions up to n - 1 - t0: windows of neither are skipped.
                let mut per_window = ((room / in_width - tail) / in_axis) as u32;
                if lane {
                    per_window = per_window / vector * vector;
                }
                let t0 = axis_start;
                let t1 = t0 + piece.dims[piece_axis].size;
                let last_of_lane = origins[0] + u64::from(n - 1) * in_axis + position_extent;
                let mut windows = Vec::new();
                let mut p = 0;
                while p < n {
                    let q = per_window.min(n - p);
                    if p <= n - 1 - t0 || (p < t1 && p + q > t0) {
                        let first_source = origins[0] + u64::from(p) * in_axis;
                        let last_source =
                            (first_source + u64::from(q - 1) * in_axis + position_extent + tail)
                                .min(last_of_lane);
                        let (input, shift) =
                            region(first_source, last_source - first_source, in_width);
                        windows.push(dispatch(input, shift, [p, p + q], everything, false));
                    }
                    p += q;
                }
                // Downwards: the window of a lane's first positions comes last, after
                // the one that copies the vector its reversed bytes merge into.
                for dispatch in windows.into_iter().rev() {
                    push(dispatch)?;
                }
            } else {
                // Input windows of `chunk` elements each; a source's offset from the
                // piece's origin says which.
                let chunk = room / in_width;
                let sources = in_extent + 1;
                let mut lo = 0;
                while lo < sources {
                    let hi = (lo + chunk).min(sources);
                    let start = (origins[0] + lo) * in_width;
                    let offset = start / align * align;
                    let end = (origins[0] + hi) * in_width;
                    let shift = (origins[0] as i128 - (offset / in_width) as i128) as i64 as u32;
                    let input = Window {
                        offset,
                        size: end.next_multiple_of(4) - offset,
                    };
                    push(Dispatch {
                        by_position: false,
                        ..dispatch(input, shift, everything, [lo as u32, hi as u32], false)
                    })?;
                    lo = hi;
                }
            }
            first += size;
        }
        // The next combination of the fixed dimensions, innermost fastest.
        let mut d = cut;
        loop {
            if d == 0 {
                return Ok(dispatches);
            }
            d -= 1;
            index[d] += 1;
            if index[d] < dims[d].size {
                break;
            }
            index[d] = 0;
        }
    }
}

/// Staged pieces (see [`Staging`]): the whole axis, by the outermost other
/// dimension that can be grouped so that every position's input and output
/// segments, one after another, fit a window of scratch, and its lengths a
/// window of their own. `None` where no such cut exists or a segment is not a
/// whole number of 4-byte words at a word boundary (narrow elements at odd
/// offsets), or an output segment would carry bytes of other pieces.
fn staged(layout: &Layout, widths: [u64; 3], window: u64, align: u64) -> Option<Vec<Dispatch>> {
    let align = align.max(16).next_power_of_two();
    let dims = &layout.dims;
    let axis = layout.axis;
    let n = dims[axis].size;
    let [in_width, len_width, out_width] = widths;
    let others: Vec<usize> = (0..dims.len()).filter(|&d| d != axis).collect();
    // A segment's bytes in scratch: a whole number of elements and of words.
    let segment = |span: u64, width: u64| (span * width).next_multiple_of(width.max(4));
    // Room for a position's segment, less a vector of padding.
    let per_position = (window / u64::from(n.max(1))).saturating_sub(16);
    let (k, group) = others.iter().enumerate().find_map(|(k, &cut)| {
        let inner = &others[k + 1..];
        let rest = |stride: fn(&Dim) -> u64| -> u64 {
            inner
                .iter()
                .map(|&d| u64::from(dims[d].size - 1) * stride(&dims[d]))
                .sum()
        };
        let slack = 4 / in_width.min(4); // rounding a segment up to a word
        let input = fits(
            (per_position / in_width).saturating_sub(slack),
            rest(|d| d.input),
            dims[cut].input,
        );
        let output = fits(
            per_position / out_width,
            rest(|d| d.output),
            dims[cut].output,
        );
        let lengths = fits(
            window.saturating_sub(align + 4) / len_width,
            rest(|d| d.lengths),
            dims[cut].lengths,
        );
        let group = input
            .min(output)
            .min(lengths)
            .min(u64::from(dims[cut].size));
        // Whole words between pieces: a group of `step` positions of `cut`
        // moves each tensor by a multiple of 4 bytes.
        let words = |stride: u64, width: u64| match stride * width % 4 {
            0 => 1,
            2 => 2,
            _ => 4,
        };
        let step = words(dims[cut].input, in_width).max(words(dims[cut].output, out_width));
        // Pieces of whole 16-byte vectors where they can be, and of one size
        // (the last one's too, as far as the sizes allow), so that one kernel
        // variant suits them all.
        let size = u64::from(dims[cut].size);
        let granule = step.max(16 / in_width.min(16));
        let granule = if group >= granule { granule } else { step };
        let group = match group >= size {
            true => size,
            false if group >= granule => {
                let pieces = size.div_ceil(group / granule * granule);
                size.div_ceil(pieces).next_multiple_of(granule)
            }
            false => group,
        };
        (group >= 1).then_some((k, group as u32))
    })?;
    let cut = others[k];
    let fixed = &others[..k];

    let mut dispatches = Vec::new();
    let mut index = vec![0u32; fixed.len()];
    loop {
        let mut first = 0;
        while first < dims[cut].size {
            let size = group.min(dims[cut].size - first);
            let origin = |stride: fn(&Dim) -> u64| -> u64 {
                fixed
                    .iter()
                    .zip(&index)
                    .map(|(&d, &i)| u64::from(i) * stride(&dims[d]))
                    .sum::<u64>()
                    + u64::from(first) * stride(&dims[cut])
            };
            let mut inner: Vec<Dim> = others[k..].iter().map(|&d| dims[d]).collect();
            inner[0].size = size;
            let in_span = extent(&inner, |d| d.input) + 1;
            let out_span = extent(&inner, |d| d.output) + 1;
            let elements: u64 = inner.iter().map(|d| u64::from(d.size)).product();
            // The lengths the piece reads, before any padding.
            let len_extent = extent(&inner, |d| d.lengths);
            // A contiguous run is padded in scratch to whole 16-byte vectors, so
            // that a last, shorter piece keeps the vector kernels of the others;
            // its padding is never copied back. Where lengths change along the
            // run, the padding's lengths lie past the piece's lengths window, and
            // a read there is clamped into the binding, as WebGPU guarantees: any
            // length does for output that stays in scratch.
            let pad = k + 1 == others.len()
                && dims[cut].input == 1
                && dims[cut].output == 1
                && in_width <= 16;
            let padded = match pad {
                true => size.next_multiple_of((16 / in_width) as u32),
                false => size,
            };
            let input = Segments {
                origin: origin(|d| d.input) * in_width,
                stride: dims[axis].input * in_width,
                bytes: segment(in_span, in_width),
                pitch: segment(in_span + u64::from(padded - size), in_width),
            };
            let output = Segments {
                origin: origin(|d| d.output) * out_width,
                stride: dims[axis].output * out_width,
                bytes: out_span * out_width,
                pitch: (out_span + u64::from(padded - size)) * out_width,
            };
            inner[0].size = padded;
            let words = |s: &Segments| {
                s.origin.is_multiple_of(4)
                    && s.stride.is_multiple_of(4)
                    && s.bytes.is_multiple_of(4)
            };
            if out_span != elements || !words(&input) || !words(&output) {
                return None;
            }
            // In scratch, positions follow one another; within a position the
            // piece keeps the caller's strides.
            let mut piece = vec![Dim {
                size: n,
                input: input.pitch / in_width,
                output: output.pitch / out_width,
                lengths: 0,
            }];
            piece.extend(inner);
            let piece = Layout {
                axis: 0,
                dims: piece,
            };
            let len_origin = origin(|d| d.lengths);
            let len_end = (len_origin + len_extent + 1) * len_width;
            // Lengths windows start on the alignment like any other; their shift
            // is in elements from there.
            let len_offset = len_origin * len_width / align * align;
            let scratch = |bytes: u64| Window {
                offset: 0,
                size: u64::from(n) * bytes,
            };
            dispatches.push(Dispatch {
                layout: piece,
                windows: [
                    scratch(input.pitch),
                    Window {
                        offset: len_offset,
                        size: len_end.next_multiple_of(4) - len_offset,
                    },
                    scratch(output.pitch),
                ],
                shifts: [
                    0,
                    ((len_origin * len_width - len_offset) / len_width) as u32,
                    0,
                ],
                axis_start: 0,
                positions: [0, u32::MAX],
                sources: [0, u32::MAX],
                whole: true,
                by_position: true,
                staging: Some(Staging {
                    positions: n,
                    input,
                    output,
                }),
            });
            if dispatches.len() > MAX_DISPATCHES {
                return None;
            }
            first += size;
        }
        // The next combination of the fixed dimensions, innermost fastest.
        let mut d = fixed.len();
        loop {
            if d == 0 {
                return Some(dispatches);
            }
            d -= 1;
            index[d] += 1;
            if index[d] < dims[fixed[d]].size {
                break;
            }
            index[d] = 0;
        }
    }
}

/// How many positions `stride` apart fit `room` elements beside the `rest` that
/// each position's inner dimensions span (all of them where `stride` is 0).
fn fits(room: u64, rest: u64, stride: u64) -> u64 {
    if rest + 1 > room {
        0
    } else {
        (room - 1 - rest)
            .checked_div(stride)
            .map_or(u64::MAX, |more| more + 1)
    }
}

/// The furthest offset from a piece's origin that its elements reach.
fn extent(dims: &[Dim], stride: impl Fn(&Dim) -> u64) -> u64 {
    dims.iter()
        .map(|d| u64::from(d.size.saturating_sub(1)) * stride(d))
        .sum()
}

/// Where to cut: the outermost dimension `cut` whose positions are grouped `group`
/// at a time, with every dimension inside it whole, such that output and lengths
/// spans fit `out_room` and `len_room` elements and input offsets stay within a
/// u32 (over the whole axis, or over positions of which `in_room` holds one). `None` when not even one element does.
fn cut(layout: &Layout, out_room: u64, len_room: u64, in_room: u64) -> Option<(usize, u32)> {
    let dims = &layout.dims;
    let axis = layout.axis;
    let n = dims[axis].size;
    (0..dims.len()).find_map(|cut| {
        let inner = &dims[cut + 1..];
        let out = fits(out_room, extent(inner, |d| d.output), dims[cut].output);
        let len = fits(len_room, extent(inner, |d| d.lengths), dims[cut].lengths);
        // Input offsets relative to a piece fit a u32 over the whole axis, or over
        // each position when a window holds whole positions.
        let in_axis = dims[axis].input;
        let position_rest: u64 = inner
            .iter()
            .enumerate()
            .filter(|&(d, _)| cut + 1 + d != axis)
            .map(|(_, d)| u64::from(d.size.saturating_sub(1)) * d.input)
            .sum();
        let in_stride = if axis == cut { 0 } else { dims[cut].input };
        let whole_axis = fits(
            u64::from(u32::MAX),
            position_rest + u64::from(n.saturating_sub(1)) * in_axis,
            in_stride,
        );
        let by_position = if in_axis <= in_room {
            fits(in_axis, position_rest, in_stride)
        } else {
            0
        };
        let input = whole_axis.max(by_position);
        let group = out.min(len).min(input).min(u64::from(dims[cut].size));
        (group >= 1).then_some((cut, group as u32))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DataType, ReverseSubsequences, TensorDesc};

    fn layout(sizes: &[u32], axis: u32) -> Layout {
        let mut len_sizes = sizes.to_vec();
        len_sizes[axis as usize] = 1;
        let desc = ReverseSubsequences::new(
            TensorDesc::new(DataType::Uint8, sizes),
            TensorDesc::new(DataType::Uint32, &len_sizes),
            TensorDesc::new(DataType::Uint8, sizes),
            axis,
        );
        desc.validate().unwrap();
        Layout::canonical(&desc)
    }

    #[test]
    fn a_tensor_that_fits_is_one_dispatch() {
        let d = split(
            &layout(&[4, 100], 1),
            [1, 4, 1],
            [400, 16, 400],
            1024,
            256,
            false,
            true,
        )
        .unwrap();
        assert_eq!(d.len(), 1);
        assert_eq!(
            d[0].windows[2],
            Window {
                offset: 0,
                size: 400
            }
        );
        assert!(d[0].whole);
    }

    #[test]
    fn rows_are_grouped_into_windows_that_hold_every_source() {
        // Rows of 300 bytes, windows of 1024 bytes: room for 2 rows a piece.
        let d = split(
            &layout(&[10, 300], 1),
            [1, 4, 1],
            [3000, 40, 3000],
            1024,
            256,
            false,
            true,
        )
        .unwrap();
        assert!(d
            .iter()
            .all(|d| d.whole && d.windows.iter().all(|w| w.size <= 1024)));
        assert_eq!(d.len(), 5);
        assert_eq!(d[1].windows[2].offset + u64::from(d[1].shifts[2]), 600);
    }

    #[test]
    fn an_axis_longer_than_a_window_runs_in_pairs_of_windows() {
        let d = split(
            &layout(&[5000], 0),
            [1, 4, 1],
            [5000, 4, 5000],
            1024,
            256,
            false,
            true,
        )
        .unwrap();
        assert!(d.iter().all(|d| !d.whole && d.by_position));
        // Each piece of output positions pairs with the input windows that can hold
        // its sources: its own positions, and those its reversal reaches (fewer for
        // later pieces).
        let pieces = 5000u64.div_ceil(1024 - 256 - 4);
        assert!(
            (d.len() as u64) > pieces && (d.len() as u64) < pieces * pieces,
            "{}",
            d.len()
        );
    }

    /// Simulates every dispatch on the host: each output element must be written
    /// exactly once, from the source the operator names, with every access inside
    /// the dispatch's windows.
    fn simulate(layout: &Layout, widths: [u64; 3], window: u64, lengths: &dyn Fn(u64) -> u32) {
        for walk in [false, true] {
            simulate_split(layout, widths, window, lengths, walk);
        }
    }

    /// [`simulate`] with `split`'s choice for a kernel that walks positions or not.
    /// Returns the elements each dispatch writes.
    fn simulate_split(
        layout: &Layout,
        widths: [u64; 3],
        window: u64,
        lengths: &dyn Fn(u64) -> u32,
        walk: bool,
    ) -> Vec<u64> {
        let dims = &layout.dims;
        let count = layout.element_count();
        let bytes = [0, 1, 2].map(|t| {
            let stride = |d: &Dim| [d.input, d.lengths, d.output][t];
            (extent(dims, stride) + 1) * widths[t]
        });
        let dispatches = split(layout, widths, bytes, window, 256, walk, true).unwrap();
        let mut written = std::collections::HashMap::new();
        let mut writes = vec![0; dispatches.len()];
        for (d, writes) in dispatches.iter().zip(&mut writes) {
            for (t, w) in d.windows.iter().enumerate() {
                assert!(
                    w.size <= window.min(MAX_WINDOW_BYTES)
                        && w.offset + w.size <= bytes[t].next_multiple_of(4)
                );
                assert_eq!(w.offset % 256, 0);
            }
            let out_origin = (d.windows[2].offset / widths[2]) as i64 + i64::from(d.shifts[2]);
            let len_origin = (d.windows[1].offset / widths[1]) as i64 + i64::from(d.shifts[1]);
            let piece = &d.layout;
            let n = dims[layout.axis].size;
            for e in 0..piece.element_count() {
                let (mut rem, mut out, mut inp, mut len, mut t) = (e, 0u64, 0u64, 0u64, 0u32);
                for dim in piece.dims.iter().rev() {
                    let i = rem % u64::from(dim.size);
                    rem /= u64::from(dim.size);
                    out += i * dim.output;
                    len += i * dim.lengths;
                    if std::ptr::eq(dim, &piece.dims[piece.axis]) {
                        t = i as u32;
                    } else {
                        inp += i * dim.input;
                    }
                }
                let l = lengths((len_origin + len as i64) as u64).min(n);
                let t = d.axis_start + t;
                let s = if t < l { l - 1 - t } else { t };
                if s < d.positions[0] || s >= d.positions[1] {
                    continue;
                }
                let source = inp + u64::from(s - d.positions[0]) * piece.dims[piece.axis].input;
                if source < u64::from(d.sources[0]) || source >= u64::from(d.sources[1]) {
                    continue;
                }
                let at_out = out + u64::from(d.shifts[2]);
                assert!((at_out + 1) * widths[2] <= d.windows[2].size);
                let at_in = (source as u32).wrapping_add(d.shifts[0]);
                assert!(
                    (u64::from(at_in) + 1) * widths[0] <= d.windows[0].size,
                    "input read outside its window"
                );
                let mut global = d.windows[0].offset / widths[0] + u64::from(at_in);
                let mut at = out_origin as u64 + out;
                if let Some(staging) = d.staging {
                    // Scratch holds the positions' segments one after another.
                    let scratch = |element: u64, segments: &Segments, width: u64| {
                        let byte = element * width;
                        let (p, within) = (byte / segments.pitch, byte % segments.pitch);
                        assert!(p < u64::from(staging.positions));
                        (within < segments.bytes)
                            .then(|| (segments.origin + p * segments.stride + within) / width)
                    };
                    let (Some(source), Some(target)) = (
                        scratch(global, &staging.input, widths[0]),
                        scratch(at, &staging.output, widths[2]),
                    ) else {
                        // Padding: read and written in scratch, never copied back.
                        continue;
                    };
                    global = source;
                    at = target;
                }
                let previous = written.insert(at, global);
                assert!(previous.is_none(), "output element written twice");
                *writes += 1;
            }
        }
        assert_eq!(written.len() as u64, count);
        // The sources the operator names, from the whole layout.
        for e in 0..count {
            let (mut rem, mut out, mut inp, mut len, mut t) = (e, 0u64, 0u64, 0u64, 0u32);
            for (d, dim) in dims.iter().enumerate().rev() {
                let i = rem % u64::from(dim.size);
                rem /= u64::from(dim.size);
                out += i * dim.output;
                len += i * dim.lengths;
                if d == layout.axis {
                    t = i as u32
                } else {
                    inp += i * dim.input
                }
            }
            let n = dims[layout.axis].size;
            let l = lengths(len).min(n);
            let s = if t < l { l - 1 - t } else { t };
            assert_eq!(written[&out], inp + u64::from(s) * dims[layout.axis].input);
        }
        writes
    }

    #[test]
    fn every_output_element_is_written_once_from_its_source() {
        let lengths = |lane: u64| (lane * 7 % 23) as u32;
        for (sizes, axis) in [
            (&[10u32, 300][..], 1),
            (&[5000][..], 0),
            (&[40, 30, 16][..], 1),
            (&[64, 8, 30][..], 0),
            (&[3, 700, 5][..], 1),
            (&[70, 16, 33][..], 0),
        ] {
            for width in [1, 2, 4, 16] {
                for window in [4096, 16384] {
                    simulate(&layout(sizes, axis), [width, 4, width], window, &lengths);
                }
            }
        }
    }

    /// The time-major layout: `[time, batch, inner]`, a length per batch entry.
    fn time_major(time: u32, batch: u32, inner: u32, width: u64) -> Layout {
        let data_type = match width {
            1 => DataType::Uint8,
            2 => DataType::Uint16,
            _ => DataType::Uint32,
        };
        let sizes = [time, batch, inner];
        let desc = ReverseSubsequences::new(
            TensorDesc::new(data_type, &sizes),
            TensorDesc::new(DataType::Uint32, &[1, batch, inner]).with_strides(&[0, 1, 0]),
            TensorDesc::new(data_type, &sizes),
            0,
        );
        desc.validate().unwrap();
        Layout::canonical(&desc)
    }

    fn dispatch_count(layout: &Layout, widths: [u64; 3], window: u64) -> (usize, bool) {
        let bytes = [0, 1, 2].map(|t| {
            let stride = |d: &Dim| [d.input, d.lengths, d.output][t];
            (extent(&layout.dims, stride) + 1) * widths[t]
        });
        let d = split(layout, widths, bytes, window, 256, false, true).unwrap();
        (d.len(), d.iter().all(|d| d.staging.is_some()))
    }

    #[test]
    fn lanes_spanning_windows_are_staged_and_written_once() {
        let lengths = |lane: u64| (lane * 7 % 45) as u32;
        for width in [1, 2, 4] {
            // Odd inner sizes: pieces padded to whole vectors in scratch.
            for (time, batch, inner) in [(40, 6, 37), (40, 5, 64), (12, 3, 301)] {
                let layout = time_major(time, batch, inner, width);
                simulate(&layout, [width, 4, width], 4096, &lengths);
            }
            simulate(&layout(&[24, 1000], 0), [width, 4, width], 4096, &lengths);
        }
    }

    #[test]
    fn staged_dispatches_grow_linearly_with_the_tensor() {
        // Each layout family whose lanes span the windows: the tensor doubled and
        // quadrupled, through the batch, the inner size or the columns.
        for width in [1, 2, 4] {
            let widths = [width, 4, width];
            for grow in [
                &(|k: u32| time_major(64, 8 * k, 1000, width)) as &dyn Fn(u32) -> Layout,
                &|k| time_major(64, 8, 1000 * k, width),
                &|k| time_major(3000, 2, 1000 * k, width),
                &|k| layout(&[64, 100_000 * k], 0),
                &|k| layout(&[16, 64, 10_000 * k], 1),
            ] {
                let counts = [1, 2, 4].map(|k| dispatch_count(&grow(k), widths, 128 << 10));
                assert!(counts.iter().all(|c| c.1), "not staged: {:?}", grow(1).dims);
                let [a, b, c] = counts.map(|c| c.0);
                assert!(
                    b <= 2 * a + 1 && c <= 4 * a + 3,
                    "{a}, {b}, {c} dispatches for {:?}",
                    grow(1).dims
                );
            }
        }
    }

    #[test]
    fn every_walked_pair_is_one_that_some_length_needs() {
        // An axis of 64 positions over 16 windows of 4 positions, in pieces of 4.
        // Position t may read any source up to 63 - t, and its own: the pairs of a
        // piece and an input window that some length needs form a triangle of
        // W(W+1)/2 (plus a piece's own window past the diagonal), and one dispatch
        // binds one of each. Walked pairs dispatch exactly those: none is idle for
        // every length. `docs/windows.md` bounds any plan's windows the same way.
        let layout = time_major(64, 2, 100, 4);
        let (w, n) = (16, 64);
        let mut needed = vec![false; w * (w + 1) / 2 + w / 2];
        for l in 0..=n {
            let writes = simulate_split(&layout, [4, 4, 4], 4096, &|_| l, true);
            assert_eq!(writes.len(), needed.len());
            for (needed, writes) in needed.iter_mut().zip(writes) {
                *needed |= writes > 0;
            }
        }
        assert!(needed.iter().all(|&n| n), "{needed:?}");
    }

    /// Simulates `rows/pairs.wgsl` over `lanes` lanes of `n` positions, each longer
    /// than a window: every output vector is written exactly once (the one the
    /// length straddles copied first, then merged), everything it reads and writes
    /// lies in its dispatch's windows, where the lane has it. Returns the pieces,
    /// the dispatches and those with something to write.
    fn simulate_lane_pairs(
        lanes: u32,
        n: u32,
        width: u64,
        window: u64,
        length: &dyn Fn(u32) -> u32,
    ) -> [usize; 3] {
        let elements = u64::from(lanes) * u64::from(n);
        let bytes = [elements * width, u64::from(lanes) * 4, elements * width];
        let d = split(
            &layout(&[lanes, n], 1),
            [width, 4, width],
            bytes,
            window,
            256,
            false,
            true,
        )
        .unwrap();
        let lane_bytes = u64::from(n) * width;
        let vector = if lane_bytes.is_multiple_of(16) { 16 } else { 4 };
        assert!(lane_bytes.is_multiple_of(vector) && width <= vector);
        let (epv, vecs) = ((vector / width) as u32, (lane_bytes / vector) as u32);
        // 0: unwritten, 1: copied whole (the straddling vector), 2: written.
        let mut state = vec![0u8; (u64::from(lanes) * u64::from(vecs)) as usize];
        let mut pieces = std::collections::HashSet::new();
        let mut working = 0;
        for d in &d {
            assert!(d.by_position && d.staging.is_none() && d.layout.rank() == 1);
            let lane = ((d.windows[1].offset / 4) as u32) + d.shifts[1];
            pieces.insert((lane, d.axis_start));
            assert_eq!(d.axis_start % epv, 0);
            assert_eq!(d.positions[0] % epv, 0);
            let o0 = d.axis_start / epv;
            let o1 = (o0 + d.layout.dims[0].size.div_ceil(epv)).min(vecs);
            let v0 = d.positions[0] / epv;
            let v1 = d.positions[1].min(n).div_ceil(epv).min(vecs);
            let lane_start = u64::from(lane) * u64::from(n);
            // Lane vector `v` in a binding: inside it, and at the lane's element.
            let at_vector = |v: u32, t: usize, shift: u32, first: u32| {
                let element = shift.wrapping_add((v.wrapping_sub(first)).wrapping_mul(epv));
                assert!((u64::from(element) + u64::from(epv)) * width <= d.windows[t].size);
                let global = d.windows[t].offset / width + u64::from(element);
                assert_eq!(global, lane_start + u64::from(v) * u64::from(epv));
            };
            let read = |v: u32| at_vector(v, 0, d.shifts[0], v0);
            let index = |j: u32| (u64::from(lane) * u64::from(vecs) + u64::from(j)) as usize;
            let mut write = |j: u32, from: u8, to: u8| {
                at_vector(j, 2, d.shifts[2], o0);
                assert_eq!(state[index(j)], from, "lane {lane} vector {j}");
                state[index(j)] = to;
            };
            let l = length(lane).min(n);
            let (at, shift) = (l / epv, (l % epv) as u64 * width);
            let mut work = false;
            for j in o0.max(at.saturating_sub(v1))..o1.min(at.saturating_sub(v0)) {
                read(at - 1 - j);
                if shift != 0 {
                    read(at - j);
                }
                write(j, 0, 2);
                work = true;
            }
            for j in o0.max(v0).max(at + u32::from(shift != 0))..o1.min(v1) {
                read(j);
                write(j, 0, 2);
                work = true;
            }
            if shift != 0 && at >= o0 && at < o1 {
                let (holds_at, holds_first) = (at >= v0 && at < v1, v0 == 0);
                match (holds_at, holds_first) {
                    (true, true) => write(at, 0, 2),
                    (true, false) => write(at, 0, 1),
                    (false, true) => write(at, 1, 2),
                    (false, false) => {}
                }
                if holds_at {
                    read(at);
                }
                if holds_first {
                    read(0);
                }
                work |= holds_at || holds_first;
            }
            working += usize::from(work);
        }
        assert!(
            state.iter().all(|&s| s == 2),
            "an output vector left unwritten"
        );
        [pieces.len(), d.len(), working]
    }

    #[test]
    fn lanes_longer_than_a_window_are_written_once_in_pairs() {
        for width in [1, 2, 4, 8, 16] {
            // Lanes of whole vectors, and of whole words that are not.
            let mut sizes = vec![(5 * 4096 + 48) / width as u32];
            if width <= 4 {
                sizes.push((5 * 4096 + 52) / width as u32);
            }
            for n in sizes {
                let per_window = 4096 / width as u32;
                // Every lane's length another: around the window boundaries, and
                // either end.
                let length = |lane: u32| match lane {
                    0 => 0,
                    1 => n,
                    2 => n + 9,
                    _ => (lane / 7 * per_window + lane % 7).saturating_sub(3).min(n),
                };
                let [pieces, dispatches, working] =
                    simulate_lane_pairs(48, n, width, 4096, &length);
                // A piece's vectors come from its own window and at most two others.
                assert!(
                    working <= 3 * pieces,
                    "{working} working of {dispatches} for {pieces} pieces"
                );
                // Twice the lanes, twice the dispatches.
                let [_, twice, _] = simulate_lane_pairs(96, n, width, 4096, &length);
                assert_eq!(twice, 2 * dispatches);
            }
        }
    }

    #[test]
    fn tensors_past_4_gib_cut_into_windows_inside_their_buffers() {
        // 16 GiB of bytes, the axis outermost then innermost, 128 MiB bindings.
        for axis in [0, 1] {
            let layout = layout(&[1 << 22, 1 << 12], axis);
            let bytes = [1 << 34, 4 << (if axis == 0 { 12 } else { 22 }), 1 << 34];
            let d = split(&layout, [1, 4, 1], bytes, 128 << 20, 256, false, true).unwrap();
            // Each piece once: its first input window; a staged piece's elements
            // are its output segments (its padding in scratch is never copied back).
            let output: u64 = d
                .iter()
                .filter(|d| d.positions[0] == 0 && d.sources[0] == 0)
                .map(|d| match d.staging {
                    Some(s) => u64::from(s.positions) * s.output.bytes,
                    None => d.layout.element_count(),
                })
                .sum();
            assert_eq!(output, 1 << 34);
            for d in &d {
                for (w, b) in d.windows.iter().zip(bytes) {
                    assert!(w.size <= 128 << 20 && w.offset + w.size <= b);
                }
            }
        }
    }
}
