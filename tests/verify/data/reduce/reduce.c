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
#pragma scop
  for (b = 0; b < nchunks; b++) {
    out[b] = 0;
    for (i = 0; i < CHUNK; i++)
      out[b] += in[b * CHUNK + i];
  }
#pragma endscop
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
