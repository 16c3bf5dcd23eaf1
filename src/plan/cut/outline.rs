//! Pairs: pieces of the output, each dispatched with every input window that may
//! hold its sources (one dispatch where they fit one window). Input windows hold
//! whole axis positions where a position's sources end before the next
//! position's begin, else ranges of input offsets from the piece's origin.

use super::geometry::{cut, extent, indices};
use super::{InputBinding, Piece, Window, MAX_DISPATCHES};
use crate::descriptor::error::{Error, TensorRole};
use crate::descriptor::layout::{Dim, Layout};
use crate::descriptor::Mode;

/// Which of a piece's elements a dispatch writes, by where their sources lie.
#[derive(Clone, Copy)]
enum Writes {
    /// All: its input window holds them.
    All,
    /// Those at axis positions [lo, hi): an input window of whole positions.
    Positions([u32; 2]),
    /// Those at input offsets [lo, hi) from the piece's origin.
    Offsets([u32; 2]),
}

/// How the output is cut: the dimension `cut`, `group` of its positions a piece,
/// every dimension inside it whole.
struct PieceCut {
    cut: usize,
    group: u32,
    /// The piece cuts a lane contiguous in input and output: pieces and input
    /// windows of whole 16-byte vectors (`vector` elements), each window binding
    /// `tail` elements (a vector) past the positions it owns, so that
    /// `rows/window.wgsl` finds every span it mirrors in the window that owns the
    /// span's lower vector.
    lane: bool,
    vector: u32,
    tail: u64,
    /// Window starts: a multiple of the storage offset alignment and of 16 bytes,
    /// so that they fall on a whole element and a whole vector.
    align: u64,
    /// What a window holds from any element on, whatever its alignment.
    room: u64,
}

/// The output cut into pieces, before any is paired with its input windows.
pub(super) struct Outline {
    cut: PieceCut,
    pieces: Vec<OutlinedPiece>,
    widths: [u64; 3],
    binding: u64,
}

/// How an outline's pieces read their sources, known before any dispatch exists.
pub(super) struct Reach {
    /// Every piece holds the whole axis and one window all its sources: one
    /// dispatch a piece, which any kernel variant runs.
    pub(super) whole: bool,
    /// No piece needs input windows of offsets: each dispatch's sources are chosen
    /// by axis position alone.
    pub(super) by_position: bool,
}

/// Which input windows a piece pairs with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Windows {
    /// One: it holds every source.
    One,
    /// Windows of whole axis positions.
    Positions,
    /// Windows of input offsets from the piece's origin.
    Offsets,
}

/// The pieces of the output, with what pairing them needs (see [`Outline::reach`]).
pub(super) fn outline(
    layout: &Layout,
    widths: [u64; 3],
    bytes: [u64; 3],
    binding: u64,
    align: u64,
) -> Result<Outline, Error> {
    let c = PieceCut::new(layout, widths, bytes, binding, align)?;
    let dims = &layout.dims;
    let count: u64 = dims[..c.cut]
        .iter()
        .map(|d| u64::from(d.size))
        .product::<u64>()
        * u64::from(dims[c.cut].size.div_ceil(c.group));
    if count > MAX_DISPATCHES as u64 {
        return Err(too_many(count));
    }
    let mut pieces = Vec::with_capacity(count as usize);
    for index in indices(dims[..c.cut].iter().map(|d| d.size).collect()) {
        let mut first = 0;
        while first < dims[c.cut].size {
            let size = c.group.min(dims[c.cut].size - first);
            pieces.push(OutlinedPiece::new(layout, &c, &index, first, size));
            first += size;
        }
    }
    Ok(Outline {
        cut: c,
        pieces,
        widths,
        binding,
    })
}

impl Outline {
    /// How the pieces read their sources.
    pub(super) fn reach(&self) -> Reach {
        let windows = |p: &OutlinedPiece| p.windows(&self.cut, self.widths[0], self.binding);
        Reach {
            whole: self
                .pieces
                .iter()
                .all(|p| p.whole_axis && windows(p) == Windows::One),
            by_position: self.pieces.iter().all(|p| windows(p) != Windows::Offsets),
        }
    }

    /// Each piece with every input window that may hold its sources; in
    /// place, where each piece's sources lie in its output window
    /// ([`Reach::whole`]), with the placeholder at the input's place.
    pub(super) fn paired(&self, mode: Mode) -> Result<Vec<Piece>, Error> {
        let mut pieces = Vec::new();
        for piece in &self.pieces {
            piece.pair(&self.cut, self.widths, self.binding, mode, &mut pieces)?;
        }
        Ok(pieces)
    }
}

/// Why no piece of one element fits: a window with room for no element of a
/// tensor besides its offset alignment and a word, or input offsets over the
/// whole axis past a u32.
fn too_large(widths: [u64; 3], bytes: [u64; 3], binding: u64, align: u64) -> Error {
    let roles = [
        TensorRole::Input,
        TensorRole::SequenceLengths,
        TensorRole::Output,
    ];
    match (0..3).find(|&t| widths[t] + align + 4 > binding) {
        Some(t) => Error::TensorTooLarge {
            tensor: roles[t],
            bytes: widths[t] + align + 4,
            limit: binding,
            limit_name: "one storage binding, which one element with its offset alignment and \
                         a word exceeds",
        },
        None => Error::TensorTooLarge {
            tensor: TensorRole::Input,
            bytes: bytes[0],
            limit: u64::from(u32::MAX) * widths[0],
            limit_name: "one binding window's 2^32 elements, which one lane's inputs exceed",
        },
    }
}

fn too_many(dispatches: u64) -> Error {
    Error::TooManyDispatches {
        dispatches,
        limit: MAX_DISPATCHES as u64,
    }
}

impl PieceCut {
    fn new(
        layout: &Layout,
        widths: [u64; 3],
        bytes: [u64; 3],
        binding: u64,
        align: u64,
    ) -> Result<PieceCut, Error> {
        let [in_width, len_width, out_width] = widths;
        let align = align.max(16).next_power_of_two();
        let room = binding.saturating_sub(align + 4);
        let (dims, axis) = (&layout.dims, layout.axis);
        let (cut, group) = cut(layout, room / out_width, room / len_width, room / in_width)
            .ok_or_else(|| too_large(widths, bytes, binding, align))?;
        let lane = axis == cut && dims[axis].input == 1 && dims[axis].output == 1;
        let vector = (16 / in_width.max(out_width)).max(1) as u32;
        let group = match lane && group < dims[axis].size && group >= vector {
            true => group / vector * vector,
            false => group,
        };
        Ok(PieceCut {
            cut,
            group,
            lane,
            vector,
            tail: if lane { u64::from(vector) } else { 0 },
            align,
            room,
        })
    }

    /// The window of `extent + 1` elements of `width` bytes from element `origin`,
    /// starting on the alignment, and the elements from its start to `origin`.
    fn region(&self, origin: u64, extent: u64, width: u64) -> (Window, u32) {
        let start = origin * width;
        let offset = start / self.align * self.align;
        let end = (origin + extent + 1) * width;
        let window = Window {
            offset,
            size: end.next_multiple_of(4) - offset,
        };
        (window, ((start - offset) / width) as u32)
    }
}

/// A piece before its input windows: positions `first..first + size` of the cut
/// dimension at `index` of the dimensions outside it.
struct OutlinedPiece {
    layout: Layout,
    /// Elements from the start of each tensor to the piece's origin; the input's
    /// at axis position 0.
    origins: [u64; 3],
    /// The furthest offset its input (over the whole axis), lengths and output
    /// reach from the origin.
    extents: [u64; 3],
    axis_start: u32,
    /// Positions of the whole axis.
    n: u32,
    /// The piece holds the whole axis.
    whole_axis: bool,
}

impl OutlinedPiece {
    fn new(layout: &Layout, c: &PieceCut, index: &[u32], first: u32, size: u32) -> OutlinedPiece {
        let (dims, axis, cut) = (&layout.dims, layout.axis, c.cut);
        let n = dims[axis].size;
        let at = |d: usize| if d == cut { first } else { index[d] };
        let origin = |stride: fn(&Dim) -> u64, skip_axis: bool| -> u64 {
            (0..=cut)
                .filter(|&d| !(skip_axis && d == axis))
                .map(|d| u64::from(at(d)) * stride(&dims[d]))
                .sum()
        };
        let mut piece: Vec<Dim> = dims[cut..].to_vec();
        piece[0].size = size;
        let out_extent = extent(&piece, |d| d.output);
        let piece_axis = if axis < cut {
            // A single position of the axis: the piece's outermost dimension, of
            // size 1, whose output stride nests above the rest.
            let position = Dim {
                size: 1,
                output: out_extent + 1,
                input: dims[axis].input,
                lengths: 0,
            };
            piece.insert(0, position);
            0
        } else {
            axis - cut
        };
        // Input sources span the whole axis.
        let in_extent = piece
            .iter()
            .enumerate()
            .map(|(d, dim)| {
                let size = if d == piece_axis { n } else { dim.size };
                u64::from(size.saturating_sub(1)) * dim.input
            })
            .sum::<u64>();
        let len_extent = extent(&piece, |d| d.lengths);
        OutlinedPiece {
            layout: Layout {
                axis: piece_axis,
                dims: piece,
            },
            origins: [
                origin(|d| d.input, true),
                origin(|d| d.lengths, false),
                origin(|d| d.output, false),
            ],
            extents: [in_extent, len_extent, out_extent],
            axis_start: if axis <= cut { at(axis) } else { 0 },
            n,
            whole_axis: axis > cut || (axis == cut && size == n),
        }
    }

    /// The input windows the piece pairs with: one where its sources fit a
    /// window, else windows of whole positions where a position's sources end
    /// before the next's, else windows of offsets.
    fn windows(&self, c: &PieceCut, in_width: u64, binding: u64) -> Windows {
        let (input, _) = c.region(self.origins[0], self.extents[0], in_width);
        let in_axis = self.layout.dims[self.layout.axis].input;
        if input.size <= binding {
            Windows::One
        } else if in_axis > self.position_extent() && c.room / in_width >= in_axis + 2 * c.tail {
            Windows::Positions
        } else {
            Windows::Offsets
        }
    }

    /// Appends the piece paired with each of its input windows, a piece each.
    fn pair(
        &self,
        c: &PieceCut,
        widths: [u64; 3],
        binding: u64,
        mode: Mode,
        out: &mut Vec<Piece>,
    ) -> Result<(), Error> {
        let windows = self.windows(c, widths[0], binding);
        debug_assert!(mode == Mode::OutOfPlace || windows == Windows::One);
        let paired = match windows {
            Windows::One => {
                let input = c.region(self.origins[0], self.extents[0], widths[0]);
                vec![self.with_input(c, widths, InputBinding::of(mode, input), Writes::All)]
            }
            Windows::Positions => self.position_windows(c, widths),
            Windows::Offsets => self.offset_windows(c, widths),
        };
        for piece in paired {
            out.push(piece);
            if out.len() > MAX_DISPATCHES {
                return Err(too_many(out.len() as u64));
            }
        }
        Ok(())
    }

    /// How far one position's sources reach, all but the axis.
    fn position_extent(&self) -> u64 {
        let in_axis = self.layout.dims[self.layout.axis].input;
        self.extents[0] - u64::from(self.n.saturating_sub(1)) * in_axis
    }

    /// The piece with `input` (what it binds at the input's
    /// place, its window and shift), writing the elements `writes` names.
    fn with_input(
        &self,
        c: &PieceCut,
        [_, len_width, out_width]: [u64; 3],
        (binding, input, in_shift): (InputBinding, Window, u32),
        writes: Writes,
    ) -> Piece {
        let (lengths, len_shift) = c.region(self.origins[1], self.extents[1], len_width);
        let (output, out_shift) = c.region(self.origins[2], self.extents[2], out_width);
        Piece {
            layout: self.layout.clone(),
            windows: [input, lengths, output],
            shifts: [in_shift, len_shift, out_shift],
            axis_start: self.axis_start,
            positions: match writes {
                Writes::Positions(range) => range,
                _ => [0, u32::MAX],
            },
            sources: match writes {
                Writes::Offsets(range) => range,
                _ => [0, u32::MAX],
            },
            whole: self.whole_axis && matches!(writes, Writes::All),
            by_position: !matches!(writes, Writes::Offsets(_)),
            across: false,
            input: binding,
            staging: None,
        }
    }

    /// Input windows of whole axis positions: a position's sources (all but the
    /// axis) come before the next position's. Output positions [t0, t1) read
    /// their own positions or, reversed, positions up to n - 1 - t0: windows of
    /// neither are skipped. Downwards: the window of a lane's first positions
    /// comes last, after the one that copies the vector its reversed bytes merge
    /// into.
    fn position_windows(&self, c: &PieceCut, widths: [u64; 3]) -> Vec<Piece> {
        let in_width = widths[0];
        let in_axis = self.layout.dims[self.layout.axis].input;
        let n = self.n;
        let position_extent = self.position_extent();
        let mut per_window = ((c.room / in_width - c.tail) / in_axis) as u32;
        if c.lane {
            per_window = per_window / c.vector * c.vector;
        }
        let t0 = self.axis_start;
        let t1 = t0 + self.layout.dims[self.layout.axis].size;
        let last_of_lane = self.origins[0] + u64::from(n - 1) * in_axis + position_extent;
        let mut windows = Vec::new();
        let mut p = 0;
        while p < n {
            let q = per_window.min(n - p);
            if p <= n - 1 - t0 || (p < t1 && p + q > t0) {
                let first = self.origins[0] + u64::from(p) * in_axis;
                let last = (first + u64::from(q - 1) * in_axis + position_extent + c.tail)
                    .min(last_of_lane);
                let (input, shift) = c.region(first, last - first, in_width);
                let writes = Writes::Positions([p, p + q]);
                windows.push(self.with_input(
                    c,
                    widths,
                    (InputBinding::Input, input, shift),
                    writes,
                ));
            }
            p += q;
        }
        windows.reverse();
        windows
    }

    /// Input windows of `room` elements each; a source's offset from the piece's
    /// origin says which.
    fn offset_windows(&self, c: &PieceCut, widths: [u64; 3]) -> Vec<Piece> {
        let in_width = widths[0];
        let origin = self.origins[0];
        let chunk = c.room / in_width;
        let sources = self.extents[0] + 1;
        let mut windows = Vec::new();
        let mut lo = 0;
        while lo < sources {
            let hi = (lo + chunk).min(sources);
            let offset = (origin + lo) * in_width / c.align * c.align;
            let end = (origin + hi) * in_width;
            // Wraps (mod 2^32) where the window starts past the origin.
            let shift = (origin as i128 - (offset / in_width) as i128) as i64 as u32;
            let input = Window {
                offset,
                size: end.next_multiple_of(4) - offset,
            };
            let writes = Writes::Offsets([lo as u32, hi as u32]);
            windows.push(self.with_input(c, widths, (InputBinding::Input, input, shift), writes));
            lo = hi;
        }
        windows
    }
}
