// expect: 7:12: pointer 'p' declared inside a SCoP
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    double *p;
    B[i] = 1.0;
  }
#pragma endscop
}
