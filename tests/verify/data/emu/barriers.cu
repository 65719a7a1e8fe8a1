/* Barrier misuse the emulation must catch.  Usage: barriers MODE with MODE
 * branches (threads wait at different barriers), early-exit (some threads
 * return before a barrier others wait at) or stack (a local array larger
 * than the fiber stack). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

__global__ void branches(int *out)
{
  if (threadIdx.x < 2) {
    out[threadIdx.x] = 1;
    __syncthreads();
  } else {
    out[threadIdx.x] = 2;
    __syncthreads();
  }
}

__global__ void early_exit(int *out)
{
  if (threadIdx.x >= 16)
    return;
  out[threadIdx.x] = 1;
  __syncthreads();
  out[threadIdx.x] += out[(threadIdx.x + 1) % 16];
}

__global__ void big_frame(int *out)
{
  volatile int local[64 * 1024];
  for (int i = 0; i < 64 * 1024; i++)
    local[i] = i;
  out[threadIdx.x] = local[threadIdx.x * 7];
}

int main(int argc, char **argv)
{
  int *out;
  cudaMalloc((void **) &out, 32 * sizeof(int));
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "branches"))
    branches<<<1, 32>>>(out);
  else if (!strcmp(mode, "early-exit"))
    early_exit<<<1, 32>>>(out);
  else if (!strcmp(mode, "stack"))
    big_frame<<<1, 4>>>(out);
  else
    return 2;
  printf("finished: %d\n", out[0]);
  return 0;
}
