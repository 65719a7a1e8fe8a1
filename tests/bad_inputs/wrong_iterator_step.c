// expect: 7:28: loop over 'j' must step by a non-zero constant ('i++')
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; i++)
      A[i][j] = 0.0;
#pragma endscop
}
