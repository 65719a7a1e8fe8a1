// covers: a SCoP that writes one member of some elements only (every other element, one
// member): the elements copied back keep the host's values of the other members
#include <stdio.h>
#define N 64
struct pair { int a; int b; };
static void compute(int n, struct pair p[N])
{
#pragma scop
  for (int i = 0; i < n; i += 2)
    p[i].a = p[i].a * 3 + i;
  for (int i = 1; i < n; i += 4) {
    p[i].a = i;
    p[i].b = -i;
  }
#pragma endscop
}

int main(void)
{
  static struct pair p[N];
  for (int t = 0; t < N; t++) { p[t].a = t; p[t].b = 1000 + t; }
  compute(50, p);
  compute(0, p);
  compute(9, p);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: p\n");
  for (int t = 0; t < N; t++) fprintf(stderr, "%d %d\n", p[t].a, p[t].b);
  fprintf(stderr, "end   dump: p\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
