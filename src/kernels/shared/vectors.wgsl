// Shared by the vector families (`rows`, `runs`, `gather`, `columns`),
// which move vectors of VEC_BYTES: 16, or 4 where a row or run is whole 32-bit
// words but not whole 16-byte vectors. The plan picks a vector family only when
// the innermost dimension of the canonical layout is contiguous in input and
// output, a row or run of it is a whole number of vectors, and every other stride
// keeps rows and runs aligned to VEC_BYTES: every vector a kernel stores lies
// inside the output tensor.
#import shared/params
#import shared/lengths
#import storage

// Bytes per element: 1, 2, 4, 8 or 16.
override ELEM_BYTES: u32;
// Vectors of a row or run, or positions along the axis, each invocation takes
// (`src/kernels/tuning/`): several on a CPU adapter, where an invocation's loop reuses
// what it loaded, one or a few on a GPU.
override STEPS: u32;

// Derived; never set by the host. At least 1, so that the constant stays valid in
// word kernels of wide elements, which never use it.
override ELEMS_PER_VEC: u32 = max(VEC_BYTES / ELEM_BYTES, 1u);

// Offsets (in elements) and the axis coordinate of one row or run of the innermost
// dimension: `index` in row-major order over every other dimension. The axis adds to
// no offset (the caller decides which position along it to use); `index` counts its
// positions where `whole_axis` (`runs`), and one position of it where not.
struct Outer {
    out_offset: u32,
    in_offset: u32,
    len_offset: u32,
    t: u32,
}

fn outer(index: u32, whole_axis: bool) -> Outer {
    // Windowed dispatches (`src/plan/cut/`): offsets from the start of each binding.
    var o = Outer(params.out_shift, params.in_shift, params.len_shift, 0u);
    var rem = index;
    // Dimensions RANK-2 down to 0; the outermost takes what is left, undivided.
    for (var k = 2u; k <= RANK; k++) {
        let d = RANK - k;
        var i = rem;
        if (d == AXIS && !whole_axis) {
            i = 0u;
        } else if (d > 0u) {
            let split = divmod(rem, params.size_divisors[d]);
            rem = split.quotient;
            i = split.remainder;
        }
        if (d == AXIS) {
            o.t = i;
        } else {
            o.out_offset += i * out_stride_at(d);
            o.in_offset += i * in_stride_at(d);
            o.len_offset += i * len_stride_at(d);
        }
    }
    return o;
}

// An element offset of a vector-aligned position, in vectors. Offsets in bytes stay
// below 2^32: a binding window never passes 4 GiB.
fn vec_index(element_offset: u32) -> u32 {
    return element_offset * ELEM_BYTES / VEC_BYTES;
}
