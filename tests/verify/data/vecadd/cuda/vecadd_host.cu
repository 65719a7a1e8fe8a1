#include <assert.h>
#include <stdio.h>
#include "vecadd_kernel.hu"
/* c = a + b over 1000 elements: four blocks of 256 threads, the last partial. */
#include <stdlib.h>
#include "pbdump.h"

#define N 1000

static void kernel_vecadd(int n, double *a, double *b, double *c)
{
  int i;
  {
#define cudaCheckReturn(ret) \
  do { \
    cudaError_t cudaCheckReturn_e = (ret); \
    if (cudaCheckReturn_e != cudaSuccess) { \
      fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(cudaCheckReturn_e)); \
      fflush(stderr); \
    } \
    assert(cudaCheckReturn_e == cudaSuccess); \
  } while(0)
#define cudaCheckKernel() \
  do { \
    cudaCheckReturn(cudaGetLastError()); \
  } while(0)

    double *dev_a;
    double *dev_b;
    double *dev_c;

    if (n >= 1) {
      cudaCheckReturn(cudaMalloc((void **) &dev_a, (n) * sizeof(double)));
      cudaCheckReturn(cudaMalloc((void **) &dev_b, (n) * sizeof(double)));
      cudaCheckReturn(cudaMalloc((void **) &dev_c, (n) * sizeof(double)));

      cudaCheckReturn(cudaMemcpy(dev_a, a, (n) * sizeof(double), cudaMemcpyHostToDevice));
      cudaCheckReturn(cudaMemcpy(dev_b, b, (n) * sizeof(double), cudaMemcpyHostToDevice));
      {
        dim3 k0_dimBlock(256);
        dim3 k0_dimGrid(min(32768, (n + 255) / 256));
        kernel0 <<<k0_dimGrid, k0_dimBlock>>> (dev_a, dev_b,
                                               dev_c, n);
        cudaCheckKernel();
      }

      cudaCheckReturn(cudaMemcpy(c, dev_c, (n) * sizeof(double), cudaMemcpyDeviceToHost));
      cudaCheckReturn(cudaFree(dev_a));
      cudaCheckReturn(cudaFree(dev_b));
      cudaCheckReturn(cudaFree(dev_c));
    }
  }
}

int main(void)
{
  double *a = (double *) malloc(N * sizeof(double));
  double *b = (double *) malloc(N * sizeof(double));
  double *c = (double *) malloc(N * sizeof(double));
  int i;
  for (i = 0; i < N; i++) {
    a[i] = i * 0.5;
    b[i] = (N - i) / 4.0;
  }
  kernel_vecadd(N, a, b, c);
  pbdump_begin();
  pbdump_doubles("c", c, N);
  pbdump_end();
  free(a);
  free(b);
  free(c);
  return 0;
}
