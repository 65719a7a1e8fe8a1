// expect: 7:25: non-affine loop condition: 'i * i' (product of two non-constant terms)
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i * i; j++)
      A[i][j] = 1.0;
#pragma endscop
}
