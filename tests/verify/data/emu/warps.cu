/* Warp-level operations, atomics and fences of the emulation (cuda_emu.h), with the
   results the hardware gives; run as `warps CASE`. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#define N 1000            /* not a multiple of the block or the warp */
#define BLOCK 128

__device__ double warp_sum(double v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

/* The standard block reduction: a shuffle tree per warp, shared memory across the
   warps, one partial per block; the last block to finish adds the partials in block
   order (deterministic), in the same launch. */
__global__ void block_sum(const double *x, double *partial, unsigned *count, double *total) {
  __shared__ double warps[BLOCK / 32];
  __shared__ bool last;
  int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  double v = i < N ? x[i] : 0.0;
  v = warp_sum(v);
  if (lane == 0) warps[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < BLOCK / 32 ? warps[lane] : 0.0;
    v = warp_sum(v);
    if (lane == 0) {
      partial[blockIdx.x] = v;
      __threadfence();
      last = atomicInc(count, gridDim.x - 1) == gridDim.x - 1;
    }
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    double s = 0.0;
    for (unsigned b = 0; b < gridDim.x; b++) s += partial[b];
    *total = s;
  }
}

__global__ void lanes(int *out) {
  int lane = threadIdx.x % 32, t = threadIdx.x;
  int all = lane;
  for (int m = 16; m > 0; m /= 2) all += __shfl_xor_sync(0xffffffffu, all, m);     /* butterfly: every lane */
  int scan = lane;
  for (int d = 1; d < 32; d *= 2) {                                               /* inclusive scan */
    int up = __shfl_up_sync(0xffffffffu, scan, d);
    if (lane >= d) scan += up;
  }
  int five = __shfl_sync(0xffffffffu, t * 10, 5);                                 /* broadcast */
  int eight = __shfl_down_sync(0xffffffffu, lane, 3, 8);                          /* width 8 */
  __syncwarp();
  out[4 * t] = all, out[4 * t + 1] = scan, out[4 * t + 2] = five, out[4 * t + 3] = eight;
}

__global__ void diverged(int *out) {
  int v = threadIdx.x;
  if (threadIdx.x < 16) v = __shfl_down_sync(0xffffffffu, v, 1);   /* half the mask never arrives */
  out[threadIdx.x] = v;
}

int main(int argc, char **argv) {
  const char *which = argc > 1 ? argv[1] : "sum";
  if (!strcmp(which, "sum")) {
    static double x[N];
    for (int i = 0; i < N; i++) x[i] = (i % 7) * 0.5 + i;
    double *dx, *dp, *dt;
    unsigned *dc;
    int blocks = (N + BLOCK - 1) / BLOCK;
    cudaMalloc((void **)&dx, sizeof x);
    cudaMalloc((void **)&dp, blocks * sizeof(double));
    cudaMalloc((void **)&dt, sizeof(double));
    cudaMalloc((void **)&dc, sizeof(unsigned));
    cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice);
    cudaMemset(dc, 0, sizeof(unsigned));
    block_sum<<<blocks, BLOCK>>>(dx, dp, dc, dt);
    double total;
    unsigned count;
    cudaMemcpy(&total, dt, sizeof total, cudaMemcpyDeviceToHost);
    cudaMemcpy(&count, dc, sizeof count, cudaMemcpyDeviceToHost);
    double expected = 0.0;
    for (int i = 0; i < N; i++) expected += x[i];
    printf("%.17g %.17g %u\n", total, expected, count);
    return 0;
  }
  int *dout, out[64 * 4];
  cudaMalloc((void **)&dout, sizeof out);
  if (!strcmp(which, "lanes")) lanes<<<1, 64>>>(dout);
  else diverged<<<1, 32>>>(dout);
  cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
  for (int t = 0; t < 64; t++) printf("%d %d %d %d\n", out[4 * t], out[4 * t + 1], out[4 * t + 2], out[4 * t + 3]);
  return 0;
}
