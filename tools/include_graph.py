#!/usr/bin/env python3
"""The include edges between the folders of a source folder (default stages/), and a check that
they form a DAG (docs/architecture.md, "The folders of stages/").

  python3 tools/include_graph.py [--root stages] [--quiet]

Reads every .cpp/.hpp/.h/.inl file under <root> and its `#include "<root>/<folder>/..."` lines. A
file directly in <root> (stages/prover.cpp) is the node "(top)": it may include any folder, and no
folder may include it. Prints each edge `a -> b: N includes`, then either "no cycle" (exit 0) or
every cycle found, with the includes that make it (exit 1). Exit 2 on a usage error.
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
TOP = "(top)"


def folder_of(root, rel):
    """The folder under root of a path relative to the source tree, or TOP for a file in root."""
    parts = rel.split("/")
    if parts[0] != root:
        return None
    return parts[1] if len(parts) > 2 else TOP


def edges_of(source_dir, root):
    edges = {}  # (a, b) -> [(file, included)]
    base = os.path.join(source_dir, root)
    for dirpath, _, files in sorted(os.walk(base)):
        for name in sorted(files):
            if not name.endswith((".cpp", ".hpp", ".h", ".inl")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, source_dir).replace(os.sep, "/")
            a = folder_of(root, rel)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for inc in INCLUDE.findall(text):
                b = folder_of(root, inc)
                if b is not None and b != a:
                    edges.setdefault((a, b), []).append((rel, inc))
    return edges


def cycles_of(edges):
    """Every elementary cycle's node list, each found once (smallest node first)."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    found = []
    for start in sorted(graph):
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in sorted(graph[node]):
                if nxt == start:
                    found.append(path)
                elif nxt > start and nxt not in path:
                    stack.append((nxt, path + [nxt]))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default="stages", help="the folder whose subfolders are the nodes (default stages)")
    ap.add_argument("--source-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                    help="the source tree (default: this script's repository)")
    ap.add_argument("--quiet", action="store_true", help="print only cycles and the verdict")
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.source_dir, args.root)):
        print(f"include_graph: no folder {args.root} under {args.source_dir}", file=sys.stderr)
        return 2
    edges = edges_of(args.source_dir, args.root)
    if not args.quiet:
        for (a, b), incs in sorted(edges.items()):
            print(f"{a} -> {b}: {len(incs)} include{'s' if len(incs) != 1 else ''}")
    bad = [(a, b) for (a, b) in edges if b == TOP]
    cycles = cycles_of(edges)
    for a, b in bad:
        print(f"error: {args.root}/{a} includes a file of {args.root}/ itself (the top may include every folder, no folder the top):")
        for f, inc in edges[(a, b)]:
            print(f"  {f} includes {inc}")
    for c in cycles:
        ring = c + [c[0]]
        print("error: cycle " + " -> ".join(ring) + ":")
        for a, b in zip(ring, ring[1:]):
            for f, inc in edges[(a, b)]:
                print(f"  {f} includes {inc}")
    if bad or cycles:
        print(f"{len(cycles)} cycle(s) between the folders of {args.root}/")
        return 1
    print(f"no cycle: the folders of {args.root}/ form a DAG ({len(edges)} edges)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
