// expect: 9:2: syntax error at end of input
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    B[i] = 0.0;
#pragma endscop
}
