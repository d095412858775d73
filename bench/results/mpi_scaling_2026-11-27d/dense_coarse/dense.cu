// time cuSOLVER dense LU + inverse (getrf + getrs with I) and Cholesky (potrf + potrs with I) for n
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <chrono>
#include <cuda_runtime.h>
#include <cusolverDn.h>
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1688;
  std::vector<double> A((size_t)n * n, 0.0), I((size_t)n * n, 0.0);
  for (int i = 0; i < n; i++) { A[(size_t)i*n+i] = 4.0; if (i) A[(size_t)i*n+i-1] = A[(size_t)(i-1)*n+i] = -1.0; I[(size_t)i*n+i] = 1.0; }
  double *dA, *dB, *dW; int *piv, *info; cusolverDnHandle_t h; cusolverDnCreate(&h);
  cudaMalloc(&dA, sizeof(double)*n*n); cudaMalloc(&dB, sizeof(double)*n*n); cudaMalloc(&piv, sizeof(int)*n); cudaMalloc(&info, sizeof(int));
  int lw = 0, lw2 = 0; cusolverDnDgetrf_bufferSize(h, n, n, dA, n, &lw); cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, &lw2);
  cudaMalloc(&dW, sizeof(double) * (lw > lw2 ? lw : lw2));
  for (int rep = 0; rep < 4; rep++) {
    cudaMemcpy(dA, A.data(), sizeof(double)*n*n, cudaMemcpyHostToDevice); cudaMemcpy(dB, I.data(), sizeof(double)*n*n, cudaMemcpyHostToDevice); cudaDeviceSynchronize();
    auto t0 = std::chrono::steady_clock::now();
    cusolverDnDgetrf(h, n, n, dA, n, dW, piv, info); cusolverDnDgetrs(h, CUBLAS_OP_N, n, n, dA, n, piv, dB, n, info); cudaDeviceSynchronize();
    auto t1 = std::chrono::steady_clock::now();
    cudaMemcpy(dA, A.data(), sizeof(double)*n*n, cudaMemcpyHostToDevice); cudaMemcpy(dB, I.data(), sizeof(double)*n*n, cudaMemcpyHostToDevice); cudaDeviceSynchronize();
    auto t2 = std::chrono::steady_clock::now();
    cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dA, n, dW, lw2, info); cusolverDnDpotrs(h, CUBLAS_FILL_MODE_LOWER, n, n, dA, n, dB, n, info); cudaDeviceSynchronize();
    auto t3 = std::chrono::steady_clock::now();
    printf("n %d  LU+inverse %.3f ms  Cholesky+inverse %.3f ms\n", n, std::chrono::duration<double, std::milli>(t1-t0).count(), std::chrono::duration<double, std::milli>(t3-t2).count());
  }
  return 0;
}
