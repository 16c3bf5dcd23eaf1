//! In place across windows (`docs/in-place.md`): where a lane, with the
//! dimensions inside the axis, spans more than a binding, its pairs have ends in
//! different windows. For each position of the dimensions outside the axis (a
//! slab), the axis is cut into groups of whole positions, each group's elements
//! within half a window; each pair of groups (front, back) that holds a pair of
//! some length is one dispatch, binding the front group's window of the tensor
//! through the output binding and the back group's through the input binding
//! (both writable: WebGPU allows two writable bindings of one buffer whose ranges
//! do not overlap). Where the two windows would overlap (one group, or
//! neighbours that share alignment bytes) one window holds both. Each pair of
//! positions is swapped by the one dispatch of its two groups.

use super::geometry::{extent, indices};
use super::{InputBinding, Piece, Window, MAX_DISPATCHES};
use crate::descriptor::error::{Error, InPlaceRule};
use crate::descriptor::layout::{Dim, Layout};
use crate::descriptor::Mode;

/// The dispatches of `layout` in place across windows, `binding` bytes at most
/// starting on `align`; `widths` are the bytes per element of the tensor (twice)
/// and of the lengths. The rule it breaks where positions interleave (one
/// position's elements reach past the next position's first), where one
/// position's elements or a slab's lengths do not fit their share of a window,
/// or where a stride passes a u32.
pub(super) fn across(
    layout: &Layout,
    [_, len_width, width]: [u64; 3],
    binding: u64,
    align: u64,
) -> Result<Result<Vec<Piece>, InPlaceRule>, Error> {
    let align = align.max(16).next_power_of_two();
    let (axis, dims) = (layout.axis, &layout.dims);
    let inner = &dims[axis + 1..];
    let stride = dims[axis].output;
    let reach = extent(inner, |d| d.output);
    let len_reach = extent(inner, |d| d.lengths);
    let narrow = |d: &Dim| d.output <= u64::from(u32::MAX) && d.lengths <= u64::from(u32::MAX);
    // Two groups' windows, each from the alignment before its first element,
    // and the alignment bytes between neighbours, fit one window.
    let half = binding.saturating_sub(3 * align + 8) / 2 / width;
    let lengths_limit = binding.saturating_sub(align + 4);
    let rule = if stride <= reach {
        Some(InPlaceRule::PositionsInterleave)
    } else if half <= reach {
        Some(InPlaceRule::PositionTooLarge {
            bytes: (reach + 1) * width,
            limit: half * width,
        })
    } else if (len_reach + 1) * len_width > lengths_limit {
        Some(InPlaceRule::LengthsTooLarge {
            bytes: (len_reach + 1) * len_width,
            limit: lengths_limit,
        })
    } else if !dims[axis..].iter().all(narrow) {
        Some(InPlaceRule::StrideTooLarge)
    } else {
        None
    };
    if let Some(rule) = rule {
        return Ok(Err(rule));
    }
    let n = dims[axis].size;
    let group = (((half - reach - 1) / stride + 1).min(u64::from(n))) as u32;
    let slabs = Slabs {
        layout,
        widths: [width, len_width],
        reaches: [reach, len_reach],
        group,
        align,
    };
    let mut pieces = Vec::new();
    for index in indices(dims[..axis].iter().map(|d| d.size).collect()) {
        slabs.slab(&index, &mut pieces)?;
    }
    Ok(Ok(pieces))
}

/// How each slab of the layout is cut: `group` positions a group; `widths`
/// are the bytes per element of the tensor and of the lengths, `reaches` the
/// furthest offset of each, from a position's origin, inside the axis.
struct Slabs<'a> {
    layout: &'a Layout,
    widths: [u64; 2],
    reaches: [u64; 2],
    group: u32,
    align: u64,
}

impl Slabs<'_> {
    /// Appends the dispatches of the slab at `index` of the dimensions outside
    /// the axis: a pair of groups each, front at or before back, where some
    /// length swaps a position of one with a position of the other.
    fn slab(&self, index: &[u32], out: &mut Vec<Piece>) -> Result<(), Error> {
        let (axis, dims) = (self.layout.axis, &self.layout.dims);
        let at = |stride: fn(&Dim) -> u64| -> u64 {
            index
                .iter()
                .zip(dims)
                .map(|(&i, d)| u64::from(i) * stride(d))
                .sum()
        };
        let origins = [at(|d| d.output), at(|d| d.lengths)];
        let n = dims[axis].size;
        let groups = n.div_ceil(self.group);
        let range = |g: u32| [g * self.group, ((g + 1) * self.group).min(n)];
        for front in 0..groups {
            for back in front..groups {
                let ([f0, f1], [b0, b1]) = (range(front), range(back));
                // Position t pairs with L - 1 - t > t, at most n - 1 - t.
                if b0 > n - 1 - f0 || b1 - 1 <= f0 {
                    continue;
                }
                out.push(self.piece(origins, [f0, f1], [b0, b1]));
                if out.len() > MAX_DISPATCHES {
                    return Err(Error::TooManyDispatches {
                        dispatches: out.len() as u64,
                        limit: MAX_DISPATCHES as u64,
                    });
                }
            }
        }
        Ok(())
    }

    /// The piece that swaps the pairs with one end at the positions `front`
    /// and the other at `back` of the slab whose origins (tensor, lengths, in
    /// elements) are `origins`.
    fn piece(&self, origins: [u64; 2], front: [u32; 2], back: [u32; 2]) -> Piece {
        let (axis, dims) = (self.layout.axis, &self.layout.dims);
        let [width, len_width] = self.widths;
        let [reach, len_reach] = self.reaches;
        let stride = dims[axis].output;
        let group = |[p0, p1]: [u32; 2]| {
            let first = origins[0] + u64::from(p0) * stride;
            let last = origins[0] + u64::from(p1 - 1) * stride + reach;
            self.region(first * width, (last + 1) * width)
        };
        let (front_window, back_window) = (group(front), group(back));
        let apart = front_window.offset + front_window.size <= back_window.offset;
        let front_window = match apart {
            true => front_window,
            false => Window {
                offset: front_window.offset,
                size: back_window.offset + back_window.size - front_window.offset,
            },
        };
        // Elements from each window's start to the slab's origin, mod 2^32: the
        // kernel adds it to offsets from the origin that lie in the window.
        let shift = |w: &Window| origins[0].wrapping_sub(w.offset / width) as u32;
        let len_first = origins[1] * len_width;
        let len_last = (origins[1] + len_reach + 1) * len_width;
        let lengths = self.region(len_first, len_last);
        let mut piece = vec![Dim {
            size: front[1] - front[0],
            ..dims[axis]
        }];
        piece.extend_from_slice(&dims[axis + 1..]);
        // The back group's window at the input's place where the groups lie
        // apart; else both in the output window, the placeholder there.
        let (input, in_window, in_shift) = match apart {
            true => (InputBinding::Tensor, back_window, shift(&back_window)),
            false => InputBinding::of(Mode::InPlace, (back_window, shift(&back_window))),
        };
        Piece {
            layout: Layout {
                axis: 0,
                dims: piece,
            },
            windows: [in_window, lengths, front_window],
            shifts: [
                in_shift,
                ((len_first - lengths.offset) / len_width) as u32,
                shift(&front_window),
            ],
            axis_start: front[0],
            positions: back,
            sources: [0, u32::MAX],
            whole: false,
            by_position: true,
            across: true,
            input,
            staging: None,
        }
    }

    /// The window of bytes [first, end), from the alignment at or before `first`
    /// to whole words.
    fn region(&self, first: u64, end: u64) -> Window {
        let offset = first / self.align * self.align;
        Window {
            offset,
            size: end.next_multiple_of(4) - offset,
        }
    }
}
