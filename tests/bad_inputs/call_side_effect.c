// expect: 8:12: call to 'g', which may have side effects
#include <math.h>
double g(double v);
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = g(B[i]);
#pragma endscop
}
