// expect: 6:23: loop condition depends on data: 'P[0]' reads memory
#include <math.h>
void f(int n, int P[10], double B[100])
{
#pragma scop
  for (int i = 0; i < P[0]; i++)
    B[i] = 1.0;
#pragma endscop
}
