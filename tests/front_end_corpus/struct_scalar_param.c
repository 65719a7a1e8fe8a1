// covers: a struct scalar parameter read in the statements (s.re, s.im): a read-only
// struct that crosses to the device whole
#include <stdio.h>
#define N 64
struct cplx { double re; double im; };
static void compute(int n, struct cplx s, double A[N], double B[N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = A[i] * s.re + s.im;
#pragma endscop
}

int main(void)
{
  static double A[N], B[N];
  struct cplx s = { 1.5, -0.25 };
  for (int t = 0; t < N; t++) { A[t] = (t % 9) * 0.5; B[t] = 0.0; }
  compute(50, s, A, B);
  s.re = -2.0; s.im = 3.0;
  compute(20, s, A, B);
  compute(0, s, A, B);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: B\n");
  for (int t = 0; t < N; t++) fprintf(stderr, "%0.17g\n", B[t]);
  fprintf(stderr, "end   dump: B\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
