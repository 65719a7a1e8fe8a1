// covers: struct assignment (b[i] = a[i], c[i] = s) copies every member, scalar and array
// members alike; b's elements the SCoP does not write keep their values
#include <stdio.h>
#define N 32
struct rec { int id; double v[3]; float f; };
static void compute(int n, struct rec a[N], struct rec b[N], struct rec c[N], struct rec s)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    b[i] = a[i];
    b[i].v[1] = b[i].v[1] + 1.0;
    c[i] = s;
  }
#pragma endscop
}

static void dump(const char *name, struct rec *r)
{
  fprintf(stderr, "begin dump: %s\n", name);
  for (int t = 0; t < N; t++)
    fprintf(stderr, "%d %0.17g %0.17g %0.17g %0.9g\n", r[t].id, r[t].v[0], r[t].v[1], r[t].v[2], r[t].f);
  fprintf(stderr, "end   dump: %s\n", name);
}

int main(void)
{
  static struct rec a[N], b[N], c[N];
  struct rec s = { 7, { 1.0, 2.0, 3.0 }, 0.5f };
  for (int t = 0; t < N; t++) {
    a[t].id = t; a[t].f = t * 0.5f; b[t].id = -t; b[t].f = -1; c[t].id = 100 + t; c[t].f = 2;
    for (int k = 0; k < 3; k++) { a[t].v[k] = t + k * 0.25; b[t].v[k] = -k; c[t].v[k] = k * k; }
  }
  compute(20, a, b, c, s);
  compute(0, a, b, c, s);
  s.id = 9;
  compute(5, b, a, c, s);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  dump("a", a); dump("b", b); dump("c", c);
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
