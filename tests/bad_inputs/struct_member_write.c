// expect: 8:5: member access through a pointer ('->')
#include <math.h>
struct point { double x, y; };
void f(int n, double B[100], struct point *pt)
{
#pragma scop
  for (int i = 0; i < n; i++)
    pt->x = B[i];
#pragma endscop
}
