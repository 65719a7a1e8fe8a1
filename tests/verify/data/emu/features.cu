/* Exercises cuda_emu.h: built-in variables, launch configurations, shared
 * memory, the runtime API and CUDA's min/max.  Emulation only: the host reads
 * device memory directly.  Prints one line per failed check and exits with
 * the number of failures. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <algorithm>

using namespace std;

static int failures = 0;
#define CHECK(cond) \
  do { if (!(cond)) { printf("FAILED line %d: %s\n", __LINE__, #cond); failures++; } } while (0)

/* Each thread of a 3-D grid of 3-D blocks records its global linear id. */
__global__ void ids(int *seen)
{
  unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned per_block = blockDim.x * blockDim.y * blockDim.z;
  seen[block * per_block + thread] += 1;
}

/* Rotates values through shared memory: needs the barrier in every order. */
__global__ void rotate(const int *in, int *out)
{
  __shared__ int buf[64];
  int t = threadIdx.x;
  buf[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  out[blockIdx.x * 64 + t] = buf[(t + 1) % 64];
}

__device__ int twice(int x) { return 2 * x; }

__global__ void helpers(int *out, double *d)
{
  out[0] = twice(min(3, 5));
  out[1] = max(-2, -7);
  d[0] = sqrt(2.0f) == sqrtf(2.0f);  /* float overload, as on the GPU */
}

#define max(a, b) ((a) > (b) ? (a) : (b))  /* a user macro after the header */

int main(void)
{
  dim3 deflt, one(4);
  CHECK(deflt.x == 1 && deflt.y == 1 && deflt.z == 1);
  CHECK(one.x == 4 && one.y == 1 && one.z == 1);

  int *seen;
  const int total = 2 * 3 * 2 * 4 * 2 * 3;
  CHECK(cudaMalloc((void **) &seen, total * sizeof(int)) == cudaSuccess);
  CHECK(seen[0] == -1 && seen[total - 1] == -1); /* poisoned */
  CHECK(cudaMemset(seen, 0, total * sizeof(int)) == cudaSuccess);
  dim3 grid(2, 3, 2), block(4, 2, 3);
  ids<<<grid, block>>>(seen);
  CHECK(cudaGetLastError() == cudaSuccess);
  int ok = 1;
  for (int i = 0; i < total; i++)
    ok &= seen[i] == 1;
  CHECK(ok);

  int host_in[3 * 64], host_out[3 * 64], *dev_in, *dev_out, *dev_copy;
  for (int i = 0; i < 3 * 64; i++)
    host_in[i] = i * 7;
  cudaMalloc((void **) &dev_in, sizeof host_in);
  cudaMalloc(&dev_out, sizeof host_out);  /* the typed overload */
  cudaMalloc(&dev_copy, sizeof host_in);
  cudaMemcpy(dev_copy, host_in, sizeof host_in, cudaMemcpyHostToDevice);
  cudaMemcpy(dev_in, dev_copy, sizeof host_in, cudaMemcpyDeviceToDevice);
  rotate <<< 3, 64, 0, 0 >>> (dev_in,
                              dev_out);
  cudaDeviceSynchronize();
  cudaMemcpy(host_out, dev_out, sizeof host_out, cudaMemcpyDeviceToHost);
  ok = 1;
  for (int b = 0; b < 3; b++)
    for (int t = 0; t < 64; t++)
      ok &= host_out[b * 64 + t] == host_in[b * 64 + (t + 1) % 64];
  CHECK(ok);

  int *dev_h;
  double *dev_d;
  cudaMalloc((void **) &dev_h, 2 * sizeof(int));
  cudaMalloc((void **) &dev_d, sizeof(double));
  CHECK(isnan(*dev_d));
  helpers<<<1, 1>>>(dev_h, dev_d);
  CHECK(dev_h[0] == 6 && dev_h[1] == -2 && dev_d[0] == 1.0);

  /* CUDA's overloads for mixed operands; std::min still usable. */
  CHECK(min(-1, 2u) == 2u);
  CHECK(min(2.5f, 1.0) == 1.0);
  CHECK(std::min(4, 3) == 3);
  CHECK(max(1, 9) == 9);

  /* Invalid configurations fail the launch, like on a GPU. */
  ids<<<1, 2048>>>(seen);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  CHECK(cudaGetLastError() == cudaSuccess);
  ids<<<dim3(1, 70000), 1>>>(seen);
  CHECK(cudaPeekAtLastError() == cudaErrorInvalidConfiguration);
  CHECK(cudaGetLastError() != cudaSuccess);
  CHECK(strcmp(cudaGetErrorString(cudaErrorInvalidConfiguration), "invalid configuration argument") == 0);

  cudaFree(seen);
  cudaFree(dev_in);
  cudaFree(dev_out);
  cudaFree(dev_copy);
  cudaFree(dev_h);
  cudaFree(dev_d);
  printf("%d failures\n", failures);
  return failures;
}
