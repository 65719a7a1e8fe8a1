// covers: SCoPs with nothing to run (nothing at all, a declaration, empty statements, a loop
// that runs for no parameter value) stay as written, each with a warning; the file's other
// SCoP between them is compiled
#include <stdio.h>
#define N 32
static void compute(int n, double A[N], double B[N])
{
  int i;
#pragma scop
#pragma endscop
  for (i = 0; i < n; i++)
    A[i] = A[i] + 1.0;
#pragma scop
  double t;
  ;
  {}
#pragma endscop
#pragma scop
  for (i = 0; i < n; i++)
    B[i] = 2.0 * A[i];
#pragma endscop
#pragma scop
  for (int k = n; k < n; k++)
    B[k] = -1.0;
  for (int k = 0; k < n && k > n; k++)
    A[k] = -1.0;
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  for (int t = 0; t < N; t++) { A[t] = (t % 5) * 0.5; B[t] = 0.0; }
  compute(20, A, B);
  compute(0, A, B);
  compute(N, A, B);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: A\n");
  for (int t = 0; t < N; t++) fprintf(stderr, "%0.17g %0.17g\n", A[t], B[t]);
  fprintf(stderr, "end   dump: A\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
