// expect: 5:9: #pragma scop without a matching #pragma endscop
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = 0.0;
}
