// expect: 8:19: assignment inside an expression
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
  double t;
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = 2.0 * (t = B[i]);
#pragma endscop
}
