"""Full tiles apart from partial ones (`--isolate-full-tiles`, C target).

A tile's point loops carry `min` bounds (`ppcg_min(31, n - 32 * c0 - 1)`) because the
last tile along a member may be cut short. isl's `isolate` AST build option on the
tile band names the tiles that are whole: isl generates them first as a part of their
own, where it knows every point is there, so their point loops have constant bounds
(`c3 <= 31`), which gcc unrolls and vectorises without a remainder; the partial tiles
follow with the bounds as before. PPCG computes the same set for its hybrid tiling:
the tiles of the points the band runs, less those of a point it does not run.
"""
from __future__ import annotations

import islpy as isl

from ...isl_context import schedule_values


def with_full_tiles_isolated(tile_band: isl.ScheduleNode, untiled: isl.MultiUnionPwAff,
                             sizes: tuple[int, ...], full: isl.Set | None = None) -> isl.ScheduleNode:
    """`tile_band` (tiled by `sizes` from the band whose schedule was `untiled`) with
    its full tiles (`full`, else `full_tiles`) isolated, the isolated part's loops of
    the same types as the rest."""
    full = full_tiles(tile_band, untiled, sizes) if full is None else full
    if full.is_empty():
        return tile_band
    option = isl.UnionSet.from_set(full.set_tuple_name("isolate"))
    node = tile_band.band_set_ast_build_options(option)
    for k in range(node.band_n_member()):
        node = node.band_member_set_isolate_ast_loop_type(k, node.band_member_get_ast_loop_type(k))
    return node


def full_tiles(tile_band: isl.ScheduleNode, untiled: isl.MultiUnionPwAff, sizes: tuple[int, ...]) -> isl.Set:
    """The full tiles of the band's points (the values of the loops around, then of the
    untiled members): see `filled_tiles`."""
    instances = tile_band.get_domain()
    prefix = tile_band.get_prefix_schedule_union_map().intersect_domain(instances)
    own = isl.UnionMap.from_multi_union_pw_aff(untiled).intersect_domain(instances)
    return filled_tiles(prefix.flat_range_product(own), tile_band.get_schedule_depth(), sizes)


def filled_tiles(values: isl.UnionMap, depth: int, sizes: tuple[int, ...]) -> isl.Set:
    """The full tiles, as `[[outer] -> [tile]]`, of the points `values` gives the instances
    (`depth` outer values, then a value per tiled member): the tiles of the points less
    the tiles where some point of the box `size * t .. size * t + size - 1` is not one
    of them. isl generates an isolated part from its simple hull: a set with a block's
    filter in it (`(t - b) mod 256 = 0`, a kernel's) would be isolated as all tiles."""
    n = len(sizes)
    points = schedule_values(values, depth + n)
    outer = [f"o{k}" for k in range(depth)]
    values = [f"x{k}" for k in range(n)]
    tiles = [f"t{k}" for k in range(n)]
    box = " and ".join(f"{s} * {t} <= {x} < {s} * {t} + {s}" for s, t, x in zip(sizes, tiles, values))
    to_tile = isl.Map(f"{{ [{', '.join(outer + values)}] -> [[{', '.join(outer)}] -> [{', '.join(tiles)}]] : "
                      f"{box} }}", context=points.get_ctx()).align_params(points.get_space())
    present = points.apply(to_tile)
    partial = present.apply(to_tile.reverse()).subtract(points).apply(to_tile)
    return present.subtract(partial).coalesce()
