// expect: 7:12: array 'tmp' declared inside a SCoP
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    double tmp[4];
    tmp[0] = B[i];
    B[i] = tmp[0];
  }
#pragma endscop
}
