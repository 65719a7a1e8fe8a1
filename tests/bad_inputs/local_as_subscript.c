// expect: 8:7: non-affine array subscript: 'k' ('k' is not a loop iterator or parameter)
#include <math.h>
void f(int n, double B[100])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    int k = i * i;
    B[k] = 1.0;
  }
#pragma endscop
}
