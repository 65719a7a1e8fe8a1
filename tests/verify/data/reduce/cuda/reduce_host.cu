#include "reduce_kernel.hu"
/* Sums of consecutive chunks of 256 values: a block-level tree reduction in
 * shared memory on the GPU.  The values are multiples of 1/4, so every
 * summation order gives the same double. */
#include <stdlib.h>
#include "pbdump.h"

#define CHUNK 256
#define NCHUNKS 8

static void kernel_reduce(int nchunks, double *in, double *out)
{
  int b, i;
  {
    double *dev_in;
    double *dev_out;
    cudaError_t err = cudaSuccess;

    if (nchunks >= 1) {
      cudaMalloc((void **) &dev_in, nchunks * CHUNK * sizeof(double));
      cudaMalloc((void **) &dev_out, nchunks * sizeof(double));
      cudaMemcpy(dev_in, in, nchunks * CHUNK * sizeof(double), cudaMemcpyHostToDevice);
      {
        dim3 k0_dimBlock(CHUNK);
        dim3 k0_dimGrid(nchunks);
        kernel0<<<k0_dimGrid, k0_dimBlock, 0, 0>>>(dev_in, dev_out);
        err = cudaGetLastError();
        if (err != cudaSuccess) {
          fprintf(stderr, "kernel0: %s\n", cudaGetErrorString(err));
          exit(1);
        }
        cudaDeviceSynchronize();
      }
      cudaMemcpy(out, dev_out, nchunks * sizeof(double), cudaMemcpyDeviceToHost);
      cudaFree(dev_in);
      cudaFree(dev_out);
    }
  }
}

int main(void)
{
  double *in = (double *) malloc(NCHUNKS * CHUNK * sizeof(double));
  double *out = (double *) malloc(NCHUNKS * sizeof(double));
  int i;
  for (i = 0; i < NCHUNKS * CHUNK; i++)
    in[i] = (i * 37 % 11) * 0.25;
  kernel_reduce(NCHUNKS, in, out);
  pbdump_begin();
  pbdump_doubles("out", out, NCHUNKS);
  pbdump_end();
  free(in);
  free(out);
  return 0;
}
