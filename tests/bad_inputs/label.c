// expect: 5:14: goto to label 'again' inside a SCoP
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
  if (n < 0) goto again;
#pragma scop
  for (int i = 0; i < n; i++) {
again:
    B[i] = 0.0;
  }
#pragma endscop
}
