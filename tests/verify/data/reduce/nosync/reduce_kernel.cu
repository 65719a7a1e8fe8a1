#include "reduce_kernel.hu"
/* Bug: no barriers between the steps of the reduction. */
__global__ void kernel0(double *in, double *out)
{
    int b0 = blockIdx.x;
    int t0 = threadIdx.x;
    __shared__ double shared_sum[256];

    shared_sum[t0] = in[256 * b0 + t0];
    for (int s = 128; s > 0; s /= 2) {
      if (t0 < s)
        shared_sum[t0] += shared_sum[t0 + s];
    }
    if (t0 == 0)
      out[b0] = shared_sum[0];
}
