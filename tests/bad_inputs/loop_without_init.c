// expect: 7:3: loop must start with 'iterator = expression'
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
  int i = 0;
#pragma scop
  for (; i < n; i++)
    B[i] = 0.0;
#pragma endscop
}
