// expect: 6:23: non-affine loop condition: 'n / m' (division by a non-constant)
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n / m; i++)
    B[i] = 1.0;
#pragma endscop
}
