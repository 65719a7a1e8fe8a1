#include "vecadd_kernel.hu"
/* Bug: never writes the last element of c. */
__global__ void kernel0(double *a, double *b, double *c, int n)
{
    int b0 = blockIdx.x;
    int t0 = threadIdx.x;

    for (int c0 = 256 * b0; c0 < n; c0 += 8388608)
      if (n >= t0 + c0 + 2)
        c[t0 + c0] = (a[t0 + c0] + b[t0 + c0]);
}
