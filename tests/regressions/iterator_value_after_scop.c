/* An iterator declared outside the SCoP is read after it: C leaves i = n there. */
#include <stdio.h>
static void f(int n, double A[100], int *out)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 2.0 * i;
#pragma endscop
  *out = i;
}
int main(void)
{
  static double A[100];
  int last = -1;
  f(37, A, &last);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\nbegin dump: A\n");
  for (int k = 0; k < 100; k++) fprintf(stderr, "%0.17g\n", A[k]);
  fprintf(stderr, "end   dump: A\nbegin dump: last\n%d\nend   dump: last\n==END   DUMP_ARRAYS==\n", last);
  return 0;
}
