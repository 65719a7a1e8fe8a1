// expect: 7:5: unsupported statement in SCoP (switch)
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
#pragma scop
  for (int i = 0; i < n; i++)
    switch (i) {
    case 0: B[i] = 1.0; break;
    default: B[i] = 2.0;
    }
#pragma endscop
}
