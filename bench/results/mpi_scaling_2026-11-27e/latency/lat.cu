// small-copy and launch latencies: pageable vs pinned host memory
#include <cstdio>
#include <cstring>
#include <chrono>
#include <cuda_runtime.h>
__global__ void k_touch(double *x) { if (threadIdx.x == 0 && blockIdx.x == 0) x[0] += 1.0; }
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main() {
    cudaStream_t s; cudaStreamCreate(&s);
    double *d; cudaMalloc(&d, 1 << 20);
    char *pg = (char *)malloc(1 << 20); char *pin; cudaMallocHost(&pin, 1 << 20);
    memset(pg, 0, 1 << 20);
    const int N = 2000;
    size_t sizes[] = {8, 1024, 65536};
    for (int rep = 0; rep < 2; rep++) {
      for (size_t b : sizes) {
        double t0 = now();
        for (int i = 0; i < N; i++) { k_touch<<<1, 32, 0, s>>>(d); cudaMemcpyAsync(pg, d, b, cudaMemcpyDeviceToHost, s); cudaStreamSynchronize(s); }
        double t1 = now();
        for (int i = 0; i < N; i++) { k_touch<<<1, 32, 0, s>>>(d); cudaMemcpyAsync(pin, d, b, cudaMemcpyDeviceToHost, s); cudaStreamSynchronize(s); }
        double t2 = now();
        for (int i = 0; i < N; i++) { k_touch<<<1, 32, 0, s>>>(d); cudaMemcpyAsync(pin, d, b, cudaMemcpyDeviceToHost, s); cudaStreamSynchronize(s); memcpy(pg, pin, b); }
        double t3 = now();
        for (int i = 0; i < N; i++) { k_touch<<<1, 32, 0, s>>>(d); cudaStreamSynchronize(s); }
        double t4 = now();
        for (int i = 0; i < N; i++) { cudaMemcpyAsync(d, pg, b, cudaMemcpyHostToDevice, s); }
        cudaStreamSynchronize(s);
        double t5 = now();
        for (int i = 0; i < N; i++) { cudaMemcpyAsync(d, pin, b, cudaMemcpyHostToDevice, s); }
        cudaStreamSynchronize(s);
        double t6 = now();
        printf("bytes %6zu  launch+D2H+sync: pageable %.2f us  pinned %.2f us  pinned+memcpy %.2f us | launch+sync %.2f us | H2D issue: pageable %.2f us pinned %.2f us\n",
               b, (t1 - t0) / N * 1e6, (t2 - t1) / N * 1e6, (t3 - t2) / N * 1e6, (t4 - t3) / N * 1e6, (t5 - t4) / N * 1e6, (t6 - t5) / N * 1e6);
      }
    }
    double t0 = now();
    for (int i = 0; i < N; i++) k_touch<<<1, 32, 0, s>>>(d);
    double t1 = now(); cudaStreamSynchronize(s); double t2 = now();
    printf("launch only %.2f us each (drain %.2f ms)\n", (t1 - t0) / N * 1e6, (t2 - t1) * 1e3);
    return 0;
}
