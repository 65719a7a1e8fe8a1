// expect: 7:23: non-affine array subscript: 'x'
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = A[i][(int) x];
#pragma endscop
}
