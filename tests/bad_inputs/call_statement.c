// expect: 8:5: call to 'g' as a statement
#include <math.h>
void g(double *p);
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    g(B);
#pragma endscop
}
