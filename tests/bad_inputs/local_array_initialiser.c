// expect: 7:12: brace initialiser for array 'tmp'
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    double tmp[4] = {0};
    tmp[0] = B[i];
    B[i] = tmp[0];
  }
#pragma endscop
}
