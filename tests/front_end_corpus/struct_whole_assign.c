// covers: structs used whole in assignments: elements of one array (pts[i] = pts[i - 1]), through
// pointers (*p = pts[0], pts[i] = *(q + i)), a struct local initialised from an element, and
// members of anonymous struct types (struct { double x; } pos;), each with a device type of its own
#include <stdio.h>
#define N 30
struct pt { double x; double y; };
struct body { struct { double x; double y; } pos; struct { int id; float w; } tag; double m; };
static void compute(int n, struct pt *p, const struct pt *q, struct pt pts[N], struct body b[N], struct body c[N])
{
#pragma scop
  for (int i = 1; i < n; i++)
    pts[i] = pts[i - 1];
  *p = pts[0];
  for (int i = 0; i < n; i++) {
    struct pt u = pts[i];
    pts[i] = *(q + i);
    pts[i].y = pts[i].y + u.x;
    b[i].pos.x = b[i].pos.y + b[i].tag.id * b[i].tag.w;
    c[i] = b[i];
    c[i].tag.id = c[i].tag.id + 1;
  }
#pragma endscop
}

int main(void)
{
  static struct pt pts[N], q[N];
  static struct body b[N], c[N];
  struct pt p = { -1.0, -2.0 };
  for (int t = 0; t < N; t++) {
    pts[t].x = t; pts[t].y = -t * 0.5; q[t].x = t % 4; q[t].y = t % 7;
    b[t].pos.x = t; b[t].pos.y = 2 * t; b[t].tag.id = t % 3; b[t].tag.w = 0.25f * t; b[t].m = 1;
    c[t] = b[t];
  }
  compute(25, &p, q, pts, b, c);
  compute(0, &p, q, pts, b, c);
  compute(1, &p, q, pts, b, c);
  compute(N, &p, pts, q, b, c);
  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n");
  fprintf(stderr, "begin dump: pts\n");
  for (int t = 0; t < N; t++)
    fprintf(stderr, "%0.17g %0.17g %0.17g %0.17g\n", pts[t].x, pts[t].y, q[t].x, q[t].y);
  fprintf(stderr, "%0.17g %0.17g\n", p.x, p.y);
  fprintf(stderr, "end   dump: pts\n");
  fprintf(stderr, "begin dump: b\n");
  for (int t = 0; t < N; t++)
    fprintf(stderr, "%0.17g %0.17g %d %0.9g %0.17g %0.17g %d %0.9g\n", b[t].pos.x, b[t].pos.y, b[t].tag.id,
            b[t].tag.w, c[t].pos.x, c[t].pos.y, c[t].tag.id, c[t].tag.w);
  fprintf(stderr, "end   dump: b\n");
  fprintf(stderr, "==END   DUMP_ARRAYS==\n");
  return 0;
}
