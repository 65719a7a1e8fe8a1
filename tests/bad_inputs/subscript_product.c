// expect: 8:9: non-affine array subscript: 'i * j' (product of two non-constant terms)
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i * j][0] = 1.0;
#pragma endscop
}
