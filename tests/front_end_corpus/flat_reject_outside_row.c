// covers: rejected: a flat array read as rows of m elements, with a reference that leaves its row (j up to m)
// expect: 9:7: 'c[(i * m) + j]' is not within one row of 'c', which the SCoP reads as rows of m elements: that needs 0 <= j < m
#include <stdio.h>
static void compute(int n, int m, double *c)
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= m; j++)
      c[i * m + j] = i + j;
#pragma endscop
}

int main(void)
{
  static double c[100];
  compute(5, 9, c);
  fprintf(stderr, "%f\n", c[7]);
  return 0;
}
