// expect: 9:3: 'i' is used outside the loop that defines it
#include <math.h>
void f(int n, int m, double A[100][100], double B[100], double x)
{
  int i;
#pragma scop
  if (n > 3) for (i = 0; i < n; i++)
    B[i] = 0.0;
  B[i] = 1.0;
#pragma endscop
}
