#include "vecadd_kernel.hu"
/* Bug: calls a host function from device code, which g++ accepts and nvcc rejects. */
static double add(double x, double y) { return x + y; }

__global__ void kernel0(double *a, double *b, double *c, int n)
{
    int b0 = blockIdx.x;
    int t0 = threadIdx.x;

    for (int c0 = 256 * b0; c0 < n; c0 += 8388608)
      if (n >= t0 + c0 + 1)
        c[t0 + c0] = add(a[t0 + c0], b[t0 + c0]);
}
