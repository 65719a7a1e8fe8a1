// expect: 7:3: unsupported statement in SCoP (do-while loop)
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
  int i = 0;
#pragma scop
  do {
    B[0] = 1.0;
  } while (i < n);
#pragma endscop
}
