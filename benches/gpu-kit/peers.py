"""The operator's peers on the same GPU and the same layouts as the benchmark:
a device-to-device copy (the limit), PyTorch's way of doing it (`torch.gather`
with an index built from the lengths), and ONNX Runtime CUDA's ReverseSequence
kernel written again (one thread per element, its index arithmetic) in CuPy.
Every peer's output is checked before it is timed.

    python3 peers.py [--mib 256] [--reps 20] [--json PATH] [--small]

Without CUDA it says so and exits 0: the kit runs here on lavapipe too.
"""

import argparse
import json
import sys

T = 64  # the reversed axis, as in the benchmark


def layouts(elements):
    """The benchmark's layouts (benches/support/layouts.rs `descriptor`): name ->
    (sizes, axis, lengths per what, max length, ONNX batch/time axes or None)."""
    return {
        "innermost": ([elements // T, T], 1, "row", 72, (0, 1)),
        "middle": ([16, T, elements // 16 // T], 1, "element", 72, None),
        "outermost": ([T, elements // T], 0, "element", 72, None),
        "onnx-batch-major": ([32, T, elements // 32 // T], 1, "batch", 64, (0, 1)),
        "onnx-time-major": ([T, 32, elements // 32 // T], 0, "batch", 64, (1, 0)),
    }


ORT_KERNEL = r"""
// ONNX Runtime's ReverseSequenceImplKernel (onnxruntime/core/providers/cuda/
// tensor/reverse_sequence_impl.cu), one element a thread: divide the flat index
// into (sequence, batch, inner) or (batch, sequence, inner), mirror the sequence
// position by the batch entry's length, write the element there.
template <typename T, bool time_major>
__device__ void reverse_sequence(const T* x, const long long* lens, T* y,
                                 long long batch, long long max_seq, long long inner,
                                 long long count) {
    long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= count) return;
    long long stride0 = time_major ? batch * inner : max_seq * inner;
    long long gid = id;
    long long first = gid / stride0; gid -= first * stride0;
    long long second = gid / inner; gid -= second * inner;
    long long seq = time_major ? first : second;
    long long b = time_major ? second : first;
    long long len = lens[b];
    long long target = seq < len ? len - 1 - seq : seq;
    long long flat = time_major ? (target * batch + b) * inner + gid
                                : (b * max_seq + target) * inner + gid;
    y[flat] = x[id];
}
struct v16 { long long a, b; };
#define KERNELS(NAME, T) \
extern "C" __global__ void NAME##_tm(const T* x, const long long* l, T* y, long long b, long long s, long long i, long long c) { reverse_sequence<T, true>(x, l, y, b, s, i, c); } \
extern "C" __global__ void NAME##_bm(const T* x, const long long* l, T* y, long long b, long long s, long long i, long long c) { reverse_sequence<T, false>(x, l, y, b, s, i, c); }
KERNELS(w1, unsigned char)
KERNELS(w2, unsigned short)
KERNELS(w4, unsigned int)
KERNELS(w8, unsigned long long)
KERNELS(w16, v16)
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mib", type=int, default=256)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--json")
    parser.add_argument("--small", action="store_true", help="1 MiB, 3 reps")
    args = parser.parse_args()
    if args.small:
        args.mib, args.reps = 1, 3
    try:
        import torch
    except ImportError:
        print("peers: skipped, no PyTorch here")
        return 0
    if not torch.cuda.is_available():
        print("peers: skipped, PyTorch sees no CUDA device here")
        return 0
    try:
        import cupy
    except ImportError:
        cupy = None
        print("peers: no CuPy here, so no ONNX Runtime kernel")

    dev = torch.device("cuda")
    print(f"peers on {torch.cuda.get_device_name(0)}, torch {torch.__version__}"
          + (f", cupy {cupy.__version__}" if cupy else ""))
    module = cupy.RawModule(code=ORT_KERNEL, options=("-std=c++14",)) if cupy else None
    dtypes = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: torch.int64}

    def timed(fn):
        fn()  # warm-up
        torch.cuda.synchronize()
        times = []
        for _ in range(args.reps):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1e3)
        times.sort()
        return times[len(times) // 2]

    rows, ok = [], True
    total = args.mib << 20
    for width in (1, 2, 4, 8, 16):
        elements = total // width
        for name, (sizes, axis, per, max_len, onnx_axes) in layouts(elements).items():
            gen = torch.Generator(device=dev).manual_seed(width * 131 + len(name))
            shape = list(sizes) + ([2] if width == 16 else [])  # 16 B: two int64
            x = torch.randint(-2**7, 2**7, shape, generator=gen, device=dev).to(dtypes[width])
            # Lengths as the benchmark spreads them, one per lane of `per`.
            lane_shape = list(sizes)
            lane_shape[axis] = 1
            if per == "row" or per == "batch":
                batch_axis = onnx_axes[0]
                n_batch = sizes[batch_axis]
                lens = torch.randint(0, max_len + 1, (n_batch,), generator=gen, device=dev)
                view = [1] * len(sizes)
                view[batch_axis] = n_batch
                lane_lens = lens.view(view).expand(lane_shape)
            else:
                lane_lens = torch.randint(0, max_len + 1, lane_shape, generator=gen, device=dev)
            # PyTorch's way: an index of the output's shape, then gather.
            pos_view = [1] * len(sizes)
            pos_view[axis] = T
            pos = torch.arange(T, device=dev).view(pos_view)
            clamped = lane_lens.clamp(max=T)

            def build_index():
                index = torch.where(pos < clamped, clamped - 1 - pos, pos).expand(sizes)
                return index.unsqueeze(-1).expand(shape) if width == 16 else index.contiguous()

            index = build_index()
            y_gather = torch.gather(x, axis, index)
            # The definition, by another road: for each length L, lanes of that
            # length take the first L positions flipped and the rest as they are.
            expected = x.clone()
            lane_l = clamped.expand(sizes)
            if width == 16:
                lane_l = lane_l.unsqueeze(-1)
            for L in range(T + 1):
                flipped = torch.cat([x.narrow(axis, 0, L).flip(axis), x.narrow(axis, L, T - L)], axis)
                expected = torch.where(lane_l == L, flipped, expected)
            if not torch.equal(expected, y_gather):
                ok = False
                print(f"gather differs from the definition: {width}B {name}")
            nbytes = x.numel() * x.element_size()
            dst = torch.empty_like(x)
            copy = timed(lambda: dst.copy_(x))
            gather = timed(lambda: torch.gather(x, axis, index, out=dst))
            gather_index = timed(lambda: torch.gather(x, axis, build_index(), out=dst))
            row = {"width": width, "layout": name, "sizes": sizes, "bytes": nbytes,
                   "copy_gbs": nbytes / copy / 1e9,
                   "gather_vs_copy": gather / copy,
                   "gather_with_index_vs_copy": gather_index / copy}
            # ONNX Runtime's kernel, on the layouts ONNX has ([B, T, I] or [T, B, I]).
            if module is not None and onnx_axes is not None:
                batch_axis, time_axis = onnx_axes
                batch, inner = sizes[batch_axis], (sizes[2] if len(sizes) == 3 else 1)
                inner *= 2 if width == 16 else 1
                w = 8 if width == 16 else width
                kernel = module.get_function(f"w{width}_{'tm' if time_axis == 0 else 'bm'}")
                lens64 = cupy.from_dlpack(lens.clamp(max=T).long().contiguous())
                cx = cupy.from_dlpack(x.view(-1).view(torch.uint8))
                cy = cupy.from_dlpack(dst.view(-1).view(torch.uint8))
                count = nbytes // width
                grid = ((count + 255) // 256,)

                def ort():
                    kernel(grid, (256,), (cx, lens64, cy, cupy.int64(batch), cupy.int64(T),
                                          cupy.int64(inner if width != 16 else inner // 2),
                                          cupy.int64(count)))

                dst.zero_()
                ort()
                torch.cuda.synchronize()
                if not torch.equal(dst, y_gather):
                    ok = False
                    print(f"ONNX Runtime's kernel differs from gather: {width}B {name}")
                row["ort_vs_copy"] = timed(ort) / copy
            rows.append(row)
            print(f"{width:>3}B {name:<17} copy {row['copy_gbs']:8.1f} GB/s  gather {row['gather_vs_copy']:6.2f}x"
                  f"  gather+index {row['gather_with_index_vs_copy']:6.2f}x"
                  + (f"  ort {row['ort_vs_copy']:6.2f}x" if "ort_vs_copy" in row else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(0), "mib": args.mib, "rows": rows}, f, indent=1)
    print("peers verified" if ok else "peers: SOME OUTPUT DIFFERED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
