//! Staged pieces (see [`Staging`]): the whole axis, by the outermost other
//! dimension that can be grouped so that every position's input and output
//! segments, one after another, fit a window of scratch, and its lengths a
//! window of their own.

use super::geometry::{extent, fits, indices};
use super::{Batch, InputBinding, Piece, Segments, Staging, Window, MAX_DISPATCHES};
use crate::descriptor::layout::{Dim, Layout};

/// The staged pieces of `layout`. `None` where no cut exists or a segment is not
/// a whole number of 4-byte words at a word boundary (narrow elements at odd
/// offsets), or an output segment would carry bytes of other pieces.
pub(super) fn staged(
    layout: &Layout,
    widths: [u64; 3],
    binding: u64,
    align: u64,
) -> Option<Vec<Piece>> {
    let align = align.max(16).next_power_of_two();
    let others: Vec<usize> = (0..layout.rank()).filter(|&d| d != layout.axis).collect();
    let (k, group) = (0..others.len())
        .find_map(|k| group(layout, &others, k, widths, binding, align).map(|g| (k, g)))?;
    let cutting = StagedCut {
        layout,
        others,
        k,
        widths,
        binding,
        align,
    };
    let dims = &layout.dims;
    let cut = cutting.others[k];
    let fixed = &cutting.others[..k];
    let mut pieces = Vec::new();
    for index in indices(fixed.iter().map(|&d| dims[d].size).collect()) {
        let mut first = 0;
        while first < dims[cut].size {
            let size = group.min(dims[cut].size - first);
            // Pieces count; their copies are at most a dispatch per segment,
            // in practice one per window the axis spans.
            pieces.push(cutting.piece(&index, first, size)?);
            if pieces.len() > MAX_DISPATCHES {
                return None;
            }
            first += size;
        }
    }
    Some(pieces)
}

/// Positions of `others[k]` a piece groups, the dimensions of `others` inside it
/// whole: as many as fit a window of scratch per position (less a vector of
/// padding) and one of lengths, moving each tensor by whole words; whole 16-byte
/// vectors and pieces of one size where they can be, so that one kernel variant
/// suits them all. `None` where not even one fits.
fn group(
    layout: &Layout,
    others: &[usize],
    k: usize,
    [in_width, len_width, out_width]: [u64; 3],
    binding: u64,
    align: u64,
) -> Option<u32> {
    let dims = &layout.dims;
    let cut = others[k];
    let per_position = (binding / u64::from(dims[layout.axis].size.max(1))).saturating_sub(16);
    let rest = |stride: fn(&Dim) -> u64| -> u64 {
        others[k + 1..]
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
        binding.saturating_sub(align + 4) / len_width,
        rest(|d| d.lengths),
        dims[cut].lengths,
    );
    let size = u64::from(dims[cut].size);
    let group = input.min(output).min(lengths).min(size);
    // Whole words between pieces: a group of `step` positions of `cut` moves
    // each tensor by a multiple of 4 bytes.
    let words = |stride: u64, width: u64| match stride * width % 4 {
        0 => 1,
        2 => 2,
        _ => 4,
    };
    let step = words(dims[cut].input, in_width).max(words(dims[cut].output, out_width));
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
    (group >= 1).then_some(group as u32)
}

/// Where the layout is cut: `others` are its dimensions but the axis; pieces
/// group positions of `others[k]`, fix those outside it and hold those inside.
struct StagedCut<'a> {
    layout: &'a Layout,
    others: Vec<usize>,
    k: usize,
    widths: [u64; 3],
    binding: u64,
    align: u64,
}

impl StagedCut<'_> {
    /// The staged piece of positions `first..first + size` of the cut
    /// dimension at `index` of the fixed ones; `None` where its segments are not
    /// whole words or its output segments carry other bytes.
    fn piece(&self, index: &[u32], first: u32, size: u32) -> Option<Piece> {
        let dims = &self.layout.dims;
        let [in_width, _, out_width] = self.widths;
        let n = dims[self.layout.axis].size;
        let mut inner: Vec<Dim> = self.others[self.k..].iter().map(|&d| dims[d]).collect();
        inner[0].size = size;
        let (input, output, padded) = self.segments(&inner, index, first)?;
        let batches = [&input, &output].map(|s| batches(s, n, self.binding, self.align));
        // The lengths the piece reads, before any padding.
        let len_extent = extent(&inner, |d| d.lengths);
        inner[0].size = padded;
        // In scratch, positions follow one another; within a position the piece
        // keeps the caller's strides.
        let mut piece = vec![Dim {
            size: n,
            input: input.pitch / in_width,
            output: output.pitch / out_width,
            lengths: 0,
        }];
        piece.extend(inner);
        let (lengths, len_shift) = self.lengths(index, first, len_extent);
        let scratch = |bytes: u64| Window {
            offset: 0,
            size: u64::from(n) * bytes,
        };
        Some(Piece {
            layout: Layout {
                axis: 0,
                dims: piece,
            },
            windows: [scratch(input.pitch), lengths, scratch(output.pitch)],
            shifts: [0, len_shift, 0],
            axis_start: 0,
            positions: [0, u32::MAX],
            sources: [0, u32::MAX],
            whole: true,
            by_position: true,
            across: false,
            input: InputBinding::Input,
            staging: Some(Staging {
                positions: n,
                input,
                output,
                batches: match batches {
                    [Some(i), Some(o)] => [i, o],
                    _ => return None,
                },
            }),
        })
    }

    /// The piece's lengths window, `extent` elements past its origin, and the
    /// origin's shift in it: a lengths window starts on the alignment like any
    /// other.
    fn lengths(&self, index: &[u32], first: u32, extent: u64) -> (Window, u32) {
        let width = self.widths[1];
        let origin = self.origin(index, first, |d| d.lengths);
        let end = (origin + extent + 1) * width;
        let offset = origin * width / self.align * self.align;
        let window = Window {
            offset,
            size: end.next_multiple_of(4) - offset,
        };
        (window, ((origin * width - offset) / width) as u32)
    }

    /// Elements from the start of a tensor (by `stride`) to the piece's origin.
    fn origin(&self, index: &[u32], first: u32, stride: fn(&Dim) -> u64) -> u64 {
        let dims = &self.layout.dims;
        let fixed = &self.others[..self.k];
        fixed
            .iter()
            .zip(index)
            .map(|(&d, &i)| u64::from(i) * stride(&dims[d]))
            .sum::<u64>()
            + u64::from(first) * stride(&dims[self.others[self.k]])
    }

    /// The input and output segments of the piece whose dimensions but the axis
    /// are `inner`, and the size its cut dimension is padded to. A contiguous run
    /// is padded in scratch to whole 16-byte vectors, so that a last, shorter
    /// piece keeps the vector kernels of the others; its padding is never copied
    /// back. Where lengths change along the run, the padding's lengths lie past
    /// the piece's lengths window: the kernels clamp those reads into the binding
    /// themselves (`clamped_lane_length` in `src/kernels/shared/lengths.wgsl`), and
    /// any length does for output that stays in scratch.
    fn segments(
        &self,
        inner: &[Dim],
        index: &[u32],
        first: u32,
    ) -> Option<(Segments, Segments, u32)> {
        let dims = &self.layout.dims;
        let axis = &dims[self.layout.axis];
        let cut = &dims[self.others[self.k]];
        let [in_width, _, out_width] = self.widths;
        let size = inner[0].size;
        let in_span = extent(inner, |d| d.input) + 1;
        let out_span = extent(inner, |d| d.output) + 1;
        let elements: u64 = inner.iter().map(|d| u64::from(d.size)).product();
        let pad =
            self.k + 1 == self.others.len() && cut.input == 1 && cut.output == 1 && in_width <= 16;
        let padded = match pad {
            true => size.next_multiple_of((16 / in_width) as u32),
            false => size,
        };
        // A segment's bytes in scratch: a whole number of elements and of words.
        let segment = |span: u64, width: u64| (span * width).next_multiple_of(width.max(4));
        let input = Segments {
            origin: self.origin(index, first, |d| d.input) * in_width,
            stride: axis.input * in_width,
            bytes: segment(in_span, in_width),
            pitch: segment(in_span + u64::from(padded - size), in_width),
        };
        let output = Segments {
            origin: self.origin(index, first, |d| d.output) * out_width,
            stride: axis.output * out_width,
            bytes: out_span * out_width,
            pitch: (out_span + u64::from(padded - size)) * out_width,
        };
        let words = |s: &Segments| {
            s.origin.is_multiple_of(4) && s.stride.is_multiple_of(4) && s.bytes.is_multiple_of(4)
        };
        (out_span == elements && words(&input) && words(&output)).then_some((input, output, padded))
    }
}

/// The `positions` segments of `segments` in batches of consecutive ones, as
/// many as one window of the caller's binding holds, from the alignment at or
/// before the batch's first: one copy dispatch each. `None` where a segment
/// and its distance from the alignment do not fit a window.
fn batches(segments: &Segments, positions: u32, binding: u64, align: u64) -> Option<Vec<Batch>> {
    let start = |p: u32| segments.origin + u64::from(p) * segments.stride;
    let mut batches = Vec::new();
    let mut first = 0;
    while first < positions {
        let offset = start(first) / align * align;
        let room = binding.checked_sub(start(first) - offset + segments.bytes)?;
        let more = match segments.stride {
            0 => u64::from(positions),
            stride => room / stride,
        };
        let count = (1 + more).min(u64::from(positions - first)) as u32;
        let end = start(first + count - 1) + segments.bytes;
        batches.push(Batch {
            first,
            count,
            window: Window {
                offset,
                size: end - offset,
            },
        });
        first += count;
    }
    Some(batches)
}
