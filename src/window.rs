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
//! variant. When it does not (the piece holds only part of the axis, or the input's
//! strides scatter it), the region is cut into windows and the piece runs once per
//! input window, each dispatch writing only the elements whose source lies in its
//! window. A source lies in exactly one window, so every element is still written
//! exactly once. An element a dispatch skips keeps its bytes: the 1- and 2-byte
//! kernel merges the elements it writes into the words it stores, and the
//! dispatches of one compute pass run in order, each seeing the writes of those
//! before it.
//!
//! Input windows hold whole axis positions where one position's sources end
//! before the next position's begin: a source's position then names its window,
//! `Runs` (whose runs lie within one position) can skip whole runs, and windows
//! that no output position of the piece can read from are not dispatched. Where
//! positions interleave, windows are ranges of input offsets from the piece's
//! origin, and only the general kernels run.

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
}

/// Cuts the operator on `layout` into dispatches. `widths` are the bytes per
/// element of input, sequence lengths and output, `bytes` their tensors' sizes;
/// `window` is the most bytes one binding may hold and `align` the storage offset
/// alignment. One dispatch, binding every tensor whole, where they all fit.
pub(crate) fn split(
    layout: &Layout,
    widths: [u64; 3],
    bytes: [u64; 3],
    window: u64,
    align: u64,
) -> Result<Vec<Dispatch>, Error> {
    let window = window.min(MAX_WINDOW_BYTES) & !3;
    let n = layout.dims[layout.axis].size;
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
        }]);
    }
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
            };
            let everything = [0, u32::MAX];
            if in_window.size <= window {
                push(dispatch(
                    in_window, in_shift, everything, everything, whole_axis,
                ))?;
            } else if in_axis > position_extent && room / in_width >= in_axis {
                // Input windows of whole axis positions: a position's sources (all
                // but the axis) come before the next position's.
                // Output positions [t0, t1) read their own positions or, reversed,
                // positions up to n - 1 - t0: windows of neither are skipped.
                let per_window = (room / in_width / in_axis) as u32;
                let t0 = axis_start;
                let t1 = t0 + piece.dims[piece_axis].size;
                let mut p = 0;
                while p < n {
                    let q = per_window.min(n - p);
                    if p <= n - 1 - t0 || (p < t1 && p + q > t0) {
                        let first_source = origins[0] + u64::from(p) * in_axis;
                        let last_source =
                            first_source + u64::from(q - 1) * in_axis + position_extent;
                        let (input, shift) =
                            region(first_source, last_source - first_source, in_width);
                        push(dispatch(input, shift, [p, p + q], everything, false))?;
                    }
                    p += q;
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
        // How many positions of `cut`, `stride` apart, fit `room` beside `rest`.
        let fits = |room: u64, rest: u64, stride: u64| -> u64 {
            if rest + 1 > room {
                0
            } else {
                (room - 1 - rest)
                    .checked_div(stride)
                    .map_or(u64::MAX, |more| more + 1)
            }
        };
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
        let d = split(&layout(&[4, 100], 1), [1, 4, 1], [400, 16, 400], 1024, 256).unwrap();
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
        let d = split(&layout(&[5000], 0), [1, 4, 1], [5000, 4, 5000], 1024, 256).unwrap();
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
        let dims = &layout.dims;
        let count = layout.element_count();
        let bytes = [0, 1, 2].map(|t| {
            let stride = |d: &Dim| [d.input, d.lengths, d.output][t];
            (extent(dims, stride) + 1) * widths[t]
        });
        let dispatches = split(layout, widths, bytes, window, 256).unwrap();
        let mut written = std::collections::HashMap::new();
        for d in &dispatches {
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
                let global = d.windows[0].offset / widths[0] + u64::from(at_in);
                let previous = written.insert(out_origin as u64 + out, global);
                assert!(previous.is_none(), "output element written twice");
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

    #[test]
    fn tensors_past_4_gib_cut_into_windows_inside_their_buffers() {
        // 16 GiB of bytes, the axis outermost then innermost, 128 MiB bindings.
        for axis in [0, 1] {
            let layout = layout(&[1 << 22, 1 << 12], axis);
            let bytes = [1 << 34, 4 << (if axis == 0 { 12 } else { 22 }), 1 << 34];
            let d = split(&layout, [1, 4, 1], bytes, 128 << 20, 256).unwrap();
            // Each piece once: its first input window.
            let output: u64 = d
                .iter()
                .filter(|d| d.positions[0] == 0 && d.sources[0] == 0)
                .map(|d| d.layout.element_count())
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
