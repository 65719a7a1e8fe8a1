// covers: structs passed whole to functions of the file (inlined): by value (an element, a struct
// local, *p; a parameter the callee assigns becomes a struct local initialised from the argument),
// by pointer (&pts[i], whose a->x is pts[i].x), and a struct returned by value
#include <stdio.h>
#define N 24
struct pt { double x; double y; };
static double norm(struct pt a) { return a.x * a.x + a.y * a.y; }
static double twice(struct pt a) { a.x = a.x * 2.0; return a.x + a.y; }
static void shift(struct pt *a, double d) { a->x = a->x + d; a->y -= d; }
static struct pt make(double v) { struct pt r; r.x = v; r.y = -v; return r; }
static void compute(int n, struct pt *p, struct pt pts[N], struct pt q[N], double A[N])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    struct pt u;
    u = pts[i];
    A[i] = norm(u) + norm(*p) + twice(pts[i]);
    shift(&pts[i], 0.5);
    q[i] = make(A[i]);
  }
  shift(p, 1.0);
#pragma endscop
}

int main(void)
{
  static struct pt pts[N], q[N];
  static double A[N];
  struct pt p = { 1.0, 2.0 };
  for (int t = 0; t < N; t++) { pts[t].x = t * 0.5; pts[t].y = -t; q[t].x = q[t].y = 0; A[t] = 0; }
  compute(N, &p, pts, q, A);
  compute(0, &p, pts, q, A);
  compute(5, &p, q, pts, A);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: A\n");
  for (int t = 0; t < N; t++)
    fprintf(stderr, "%0.17g %0.17g %0.17g %0.17g %0.17g\n", A[t], pts[t].x, pts[t].y, q[t].x, q[t].y);
  fprintf(stderr, "%0.17g %0.17g\n", p.x, p.y);
  fprintf(stderr, "end   dump: A\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
