// expect: 7:9: #pragma endscop without a matching #pragma scop
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
  for (int i = 0; i < n; i++)
    B[i] = 0.0;
#pragma endscop
}
