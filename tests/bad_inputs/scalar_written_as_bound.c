// expect: 9:25: non-affine loop condition: 'k' ('k' is not a loop iterator or parameter)
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
  int k;
#pragma scop
  for (int i = 0; i < n; i++) {
    if (i > 2) k = i + 1; else k = 1;
    for (int j = 0; j < k; j++)
      A[i][j] = 0.0;
  }
#pragma endscop
}
