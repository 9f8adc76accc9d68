// The seed's error made for real (bench/h200/seed-repro.sh): a SAXPY kernel compiled for the
// architectures the build script names. Built for sm_80 as SASS only (no PTX), an H200 (sm_90)
// has nothing to run: the launch fails with cudaErrorNoKernelImageForDevice, "no kernel image is
// available for execution on the device", as torch does in the seed story.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

__global__ void kernpkg_saxpy(float* out, const float* x, const float* y, float a, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = a * x[i] + y[i];
}

static int fail(char* err, size_t size, const char* call, cudaError_t e) {
    snprintf(err, size, "CUDA error: %s (%s in %s)", cudaGetErrorString(e), cudaGetErrorName(e), call);
    return (int)e;
}

// Runs out = 3x + y on `n` floats of the current GPU and checks every value (all exact in fp32).
// Returns 0, or the CUDA error (text in `err`); -1 for a wrong result.
extern "C" int kernpkg_run(int n, char* err, size_t size, char* device, size_t device_size) {
    cudaDeviceProp prop;
    cudaError_t e = cudaGetDeviceProperties(&prop, 0);
    if (e != cudaSuccess) return fail(err, size, "cudaGetDeviceProperties", e);
    snprintf(device, device_size, "%s (sm_%d%d)", prop.name, prop.major, prop.minor);
    float *hx = new float[n], *hy = new float[n], *ho = new float[n];
    for (int i = 0; i < n; ++i) {
        hx[i] = (float)(i % 1024);
        hy[i] = (float)(i % 4);
    }
    float *dx = nullptr, *dy = nullptr, *dout = nullptr;
    int rc = 0;
    size_t bytes = (size_t)n * sizeof(float);
    if ((e = cudaMalloc(&dx, bytes)) || (e = cudaMalloc(&dy, bytes)) || (e = cudaMalloc(&dout, bytes))) {
        rc = fail(err, size, "cudaMalloc", e);
    } else if ((e = cudaMemcpy(dx, hx, bytes, cudaMemcpyHostToDevice)) || (e = cudaMemcpy(dy, hy, bytes, cudaMemcpyHostToDevice))) {
        rc = fail(err, size, "cudaMemcpy", e);
    } else {
        kernpkg_saxpy<<<256, 256>>>(dout, dx, dy, 3.0f, n);
        if ((e = cudaGetLastError()) != cudaSuccess) rc = fail(err, size, "kernpkg_saxpy<<<>>>", e);
        else if ((e = cudaDeviceSynchronize()) != cudaSuccess) rc = fail(err, size, "cudaDeviceSynchronize", e);
        else if ((e = cudaMemcpy(ho, dout, bytes, cudaMemcpyDeviceToHost)) != cudaSuccess) rc = fail(err, size, "cudaMemcpy", e);
        else
            for (int i = 0; i < n; ++i)
                if (ho[i] != 3.0f * hx[i] + hy[i]) {
                    snprintf(err, size, "wrong result at %d: expected %g, got %g", i, 3.0f * hx[i] + hy[i], ho[i]);
                    rc = -1;
                    break;
                }
    }
    cudaFree(dx);
    cudaFree(dy);
    cudaFree(dout);
    delete[] hx;
    delete[] hy;
    delete[] ho;
    return rc;
}
