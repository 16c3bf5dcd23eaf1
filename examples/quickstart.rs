//! Host slices in, host slices out: both forms of the operator on the default
//! adapter. `cargo run --example quickstart`

fn main() -> Result<(), revseq::Error> {
    let gpu = revseq::Gpu::new()?;
    println!("adapter: {}", gpu.adapter_info().name);

    // DirectML's form: one length per row of a [3, 4] tensor, reversing along axis 1.
    let input = [1f32, 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12.];
    let out = gpu.reverse_subsequences(&input, &[3, 4], &[2u32, 4, 3], 1)?;
    assert_eq!(out, [2., 1., 3., 4., 8., 7., 6., 5., 11., 10., 9., 12.]);
    println!("reverse_subsequences: {out:?}");

    // ONNX ReverseSequence (opset 10): lengths per batch entry, here [batch 2, time 3].
    let out = gpu.reverse_sequence(&[0i32, 1, 2, 3, 4, 5], &[2, 3], &[3, 1], 0, 1)?;
    assert_eq!(out, [2, 1, 0, 3, 4, 5]);
    println!("reverse_sequence: {out:?}");

    // The CPU reference computes the same, for every data type and layout.
    let reference = revseq::reference::reverse_subsequences(&input, &[3, 4], &[2u32, 4, 3], 1)?;
    assert_eq!(
        reference,
        [2., 1., 3., 4., 8., 7., 6., 5., 11., 10., 9., 12.]
    );
    Ok(())
}
