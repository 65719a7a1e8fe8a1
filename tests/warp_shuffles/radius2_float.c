/* A 1-D stencil of radius 2 over floats, time-iterated with two arrays: the rows
   read at offsets -2..2 from each lane's element. Sizes known at run time (the
   default is no multiple of any tile). */
#include <stdio.h>
#include <stdlib.h>

static void kernel(int steps, int n, float A[n], float B[n])
{
#pragma scop
  for (int t = 0; t < steps; t++) {
    for (int i = 2; i < n - 2; i++)
      B[i] = 0.1f * A[i - 2] + 0.2f * A[i - 1] + 0.4f * A[i] + 0.2f * A[i + 1] + 0.1f * A[i + 2];
    for (int i = 2; i < n - 2; i++)
      A[i] = 0.25f * B[i - 2] + 0.5f * B[i] + 0.25f * B[i + 2];
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int steps = argc > 1 ? atoi(argv[1]) : 4, n = argc > 2 ? atoi(argv[2]) : 3001;
  float *A = malloc(sizeof(float) * n), *B = malloc(sizeof(float) * n);
  for (int i = 0; i < n; i++) {
    A[i] = (float) ((i * 7) % 23) / 8.0f;
    B[i] = -1.0f;
  }
  kernel(steps, n, A, B);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  const char *names[] = {"A", "B"};
  float *arrays[] = {A, B};
  for (int a = 0; a < 2; a++) {
    fprintf(stderr, "begin dump: %s\n", names[a]);
    for (int i = 0; i < n; i++)
      fprintf(stderr, "%0.9g\n", arrays[a][i]);
    fprintf(stderr, "end   dump: %s\n", names[a]);
  }
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
