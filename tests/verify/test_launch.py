"""Rewriting of `k<<<grid, block>>>(args)` launches for g++."""

import pytest

from ppcg_py.verify.launch import LaunchSyntaxError, rewrite_launches


def test_ppcg_style_launch():
    src = "      kernel0 <<<k0_dimGrid, k0_dimBlock>>> (dev_A, n, c0);\n"
    assert rewrite_launches(src) == (
        "      ppcg_emu_launch(k0_dimGrid, k0_dimBlock, [&]() { kernel0(dev_A, n, c0); });\n"
    )


def test_compact_launch_and_two_launches():
    src = "k<<<g,b>>>(x);\nk2<<<dim3(1, 2), 32>>>();"
    assert rewrite_launches(src) == (
        "ppcg_emu_launch(g,b, [&]() { k(x); });\nppcg_emu_launch(dim3(1, 2), 32, [&]() { k2(); });"
    )


def test_shared_memory_and_stream_are_passed_on():
    out = rewrite_launches("k<<<g, b, 0, stream>>>(a);")
    assert out == "ppcg_emu_launch(g, b, [&]() { k(a); }, 0, stream);"


def test_arguments_spanning_lines_keep_line_count():
    src = 'kernel1 <<<grid,\n  block>>>\n  (f(a, (b + 1)),\n   c[idx(i, j)],\n   ")");\nnext();\n'
    out = rewrite_launches(src)
    assert out.count("\n") == src.count("\n")
    assert out.startswith("ppcg_emu_launch(grid,\n  block,\n  [&]() { kernel1(f(a, (b + 1)),")
    assert out.endswith('   ")"); });\nnext();\n')


def test_comments_strings_and_qualified_names():
    src = "// k<<<a, b>>>(c);\nputs(\"<<<\");\n/* x<<<1,1>>>() */ ns::k <<<1, 1>>>(s, '>');\n"
    out = rewrite_launches(src)
    assert out.startswith('// k<<<a, b>>>(c);\nputs("<<<");\n/* x<<<1,1>>>() */ ')
    assert out.endswith("ppcg_emu_launch(1, 1, [&]() { ns::k(s, '>'); });\n")


def test_source_without_launches_is_unchanged():
    src = "int x = a << 2; if (b >> 1 > 0) y = c <<= 3;\n"
    assert rewrite_launches(src) == src


@pytest.mark.parametrize(
    "src",
    [
        "k<<<g>>>(a);",  # one configuration argument
        "k<<<g, b>>>;",  # no argument list
        "k<<<g, b>>>(a;",  # unbalanced
        "(<<<g, b>>>(a));",  # no kernel name
        "k<<<g, b(>>>(a);",
    ],
)
def test_malformed_launches_are_rejected(src):
    with pytest.raises(LaunchSyntaxError):
        rewrite_launches(src)
