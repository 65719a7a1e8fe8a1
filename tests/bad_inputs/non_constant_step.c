// expect: 6:26: loop over 'i' must step by a non-zero constant ('i += m')
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i += m)
    B[i] = 1.0;
#pragma endscop
}
