// expect: 7:9: if condition depends on data: 'B[i]' reads memory
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    if (B[i] > 0.0)
      B[i] = 0.0;
#pragma endscop
}
