"""How fast cuBLAS runs an f32 (TF32) or bf16 matmul for each operand
layout, and what a transposing copy of an operand costs, on the GPU
machine (PyTorch). A row-major dot whose contracting dimension is the
slow one of an operand (a weight gradient, x^T @ dy) reaches cuBLAS with
that operand not K-major; on Hopper, TF32 tensor-core instructions read
only K-major tiles, so such gemms may be slower. This measures by how
much, to decide when copying an operand to K-major pays.

  python3 tools/gpu_bench/probes/gemm_layout_probe.py
"""

import torch


def time_ms(fn, reps=20, rounds=5):
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    fn()
    torch.cuda.synchronize()
    best = []
    for _ in range(rounds):
        start.record()
        for _ in range(reps):
            fn()
        stop.record()
        torch.cuda.synchronize()
        best.append(start.elapsed_time(stop) / reps)
    best.sort()
    return best[len(best) // 2]


def main():
    torch.backends.cuda.matmul.allow_tf32 = True
    print(torch.cuda.get_device_name(), "torch", torch.__version__)
    print("| dtype | M x N x K | lhs K-major | rhs K-major | ms | TFLOP/s |")
    print("|---|---|---|---|---|---|")
    for dtype in (torch.float32, torch.bfloat16):
        for m, n, k in ((4096, 4096, 4096), (1024, 4096, 4096),
                        (4096, 1024, 4096), (4096, 4096, 1024)):
            for lhs_k in (True, False):
                for rhs_k in (True, False):
                    # lhs is M x K; K-major means K contiguous (row-major
                    # M x K); otherwise it is the transpose of a K x M.
                    a = (torch.randn(m, k, device="cuda", dtype=dtype)
                         if lhs_k else
                         torch.randn(k, m, device="cuda", dtype=dtype).t())
                    b = (torch.randn(n, k, device="cuda", dtype=dtype).t()
                         if rhs_k else
                         torch.randn(k, n, device="cuda", dtype=dtype))
                    ms = time_ms(lambda: torch.matmul(a, b))
                    print(f"| {str(dtype)[6:]} | {m}x{n}x{k} | {lhs_k} | "
                          f"{rhs_k} | {ms:.3f} | {2*m*n*k/ms/1e9:.0f} |")
    for dtype in (torch.float32, torch.bfloat16):
        x = torch.randn(4096, 4096, device="cuda", dtype=dtype)
        ms = time_ms(lambda: x.t().contiguous())
        ms_copy = time_ms(lambda: x.clone())
        print(f"transpose copy 4096x4096 {str(dtype)[6:]}: {ms*1e3:.1f} us "
              f"(plain copy {ms_copy*1e3:.1f} us)")


if __name__ == "__main__":
    main()
