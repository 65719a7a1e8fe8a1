// expect: 7:23: pointer operation '&'
#include <math.h>
void f(int n, double B[100])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = (double) (&B[i] - &B[0]);
#pragma endscop
}
