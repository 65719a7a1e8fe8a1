// expect: 7:19: 'static' declaration of 'acc' inside a SCoP
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    static double acc = 0.0;
    B[i] = acc;
  }
#pragma endscop
}
