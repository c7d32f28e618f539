# CuPy 2-D FFT of a 4096x4096 complex64 array (cuFFT): warm-up, then one FFT in NVTX range "timed" between cudaProfilerStart/Stop.
import cupy as cp
from cupy.cuda import nvtx, profiler

rng = cp.random.default_rng(0)
x = (rng.standard_normal((4096, 4096), dtype=cp.float32)
     + 1j * rng.standard_normal((4096, 4096), dtype=cp.float32)).astype(cp.complex64)
for _ in range(2):
    cp.fft.fft2(x)
cp.cuda.Device().synchronize()
profiler.start()
nvtx.RangePush("timed")
y = cp.fft.fft2(x)
cp.cuda.Device().synchronize()
nvtx.RangePop()
profiler.stop()
print("cupy-fft: done", y.shape, float(abs(y[0, 0])) > 0, flush=True)
