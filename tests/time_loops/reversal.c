/* A time loop whose sweep reads the mirror element, `A[N - 1 - i]`: the dependences'
 * direction follows from the constant bound (`i < N / 2` reads the upper half only);
 * without that bound the relaxed problem has them point both ways. */
#include <stdio.h>
#define N 29
#define T 6

static void run(double A[N], double B[N])
{
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < N / 2; i++)
      A[i] = 0.5 * (A[i] + A[N - 1 - i]) + B[i];
    for (int i = 1; i < N - 1; i++)
      B[i] = 0.25 * (A[i - 1] + A[i + 1]);
  }
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  for (int i = 0; i < N; i++) {
    A[i] = (double) ((i * 7) % 11) / 3.0;
    B[i] = 0.0;
  }
  run(A, B);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (int i = 0; i < N; i++)
    fprintf(stderr, "%0.17g\n", A[i]);
  fprintf(stderr, "end   dump: A\nbegin dump: B\n");
  for (int i = 0; i < N; i++)
    fprintf(stderr, "%0.17g\n", B[i]);
  fprintf(stderr, "end   dump: B\n==END   DUMP_ARRAYS==\n");
  return 0;
}
