// expect: 7:7: non-affine array subscript: 'i % m' (division by a non-constant)
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i % m] = 1.0;
#pragma endscop
}
