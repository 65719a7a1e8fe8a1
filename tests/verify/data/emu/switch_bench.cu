/* Measures the cost of a fiber switch: every thread of one block passes
 * `rounds` barriers, i.e. two switches (to the fiber and back) per thread per
 * barrier.  Usage: switch_bench [rounds] [threads]; prints ns per switch. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__global__ void spin(int rounds, int *counter)
{
  for (int r = 0; r < rounds; r++)
    __syncthreads();
  if (threadIdx.x == 0)
    *counter += rounds;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 1000;
  int threads = argc > 2 ? atoi(argv[2]) : 1024;
  int counter = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  spin<<<1, threads>>>(rounds, &counter);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
  printf("%d %.1f\n", counter, ns / (2.0 * rounds * threads));
  return counter == rounds ? 0 : 1;
}
