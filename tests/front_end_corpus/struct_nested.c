// covers: nested structs (a[i].pos.x, a[i].vel.x): each nested member is a field array,
// and the device declares both struct types
#include <stdio.h>
#define N 50
struct vec { double x; double y; };
struct body { struct vec pos; struct vec vel; double mass; };
static void compute(int n, int steps, struct body a[N])
{
#pragma scop
  for (int t = 0; t < steps; t++)
    for (int i = 0; i < n; i++) {
      a[i].pos.x = a[i].pos.x + a[i].vel.x * 0.5;
      a[i].pos.y = a[i].pos.y + a[i].vel.y * 0.5 / a[i].mass;
    }
#pragma endscop
}

int main(void)
{
  static struct body a[N];
  for (int t = 0; t < N; t++) {
    a[t].pos.x = t; a[t].pos.y = -t; a[t].vel.x = (t % 5) - 2; a[t].vel.y = (t % 3) * 0.5; a[t].mass = 1 + t % 4;
  }
  compute(40, 3, a);
  compute(0, 2, a);
  compute(N, 1, a);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: a\n");
  for (int t = 0; t < N; t++)
    fprintf(stderr, "%0.17g %0.17g %0.17g %0.17g %0.17g\n", a[t].pos.x, a[t].pos.y, a[t].vel.x, a[t].vel.y,
            a[t].mass);
  fprintf(stderr, "end   dump: a\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
