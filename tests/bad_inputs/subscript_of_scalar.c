// expect: 7:12: subscript of a non-array 'x'
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = x[i];
#pragma endscop
}
