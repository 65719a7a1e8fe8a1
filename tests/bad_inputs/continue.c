// expect: 8:7: unsupported statement in SCoP (continue)
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    if (i > 2)
      continue;
    B[i] = 0.0;
  }
#pragma endscop
}
