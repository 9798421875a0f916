#!/usr/bin/env python3
"""A writer of vkstark proving inputs (.vki), written from docs/proving-input.md alone (standard
library only): write_proving_input(path, airs), and the "interactions" computation's input:

    python3 tests/support/write_proving_input.py interactions --rows N --out FILE

gives the bytes of `vkstark trace --air interactions --rows N --out FILE`.
"""
import argparse
import struct
import sys

P = 15 * 2**27 + 1  # BabyBear: 2013265921


def write_proving_input(path, airs):
    """airs: per AIR of the verifying key, in its order, a dict: name, preprocessed (None or a list
    of columns, each a list of ints), present, cached (a list of matrices as lists of columns),
    common (a list of columns), public_values. Values are canonical integers in [0, P). ValueError
    for what the format cannot hold."""
    def check(ok, what):
        if not ok:
            raise ValueError("proving input: " + what)

    def word(v):
        return struct.pack("<I", v)

    def log2_height(matrix):
        check(len(matrix) >= 1, "a matrix of no columns")
        height = len(matrix[0])
        check(all(len(c) == height for c in matrix), "columns of different heights")
        check(1 <= height <= 2**24 and height & (height - 1) == 0, "a height that is not 2^0..2^24")
        return height.bit_length() - 1

    head, values = bytearray(word(len(airs))), bytearray()

    def put_values(matrix):  # column-major: all rows of column 0, then column 1, ...
        for column in matrix:
            check(all(0 <= v < P for v in column), "a value not in [0, p)")
            values.extend(struct.pack("<%dI" % len(column), *column))

    check(1 <= len(airs) <= 2**16, "%d AIRs" % len(airs))
    for air in airs:
        name = air["name"].encode("ascii")
        check(1 <= len(name) <= 128 and all(0x20 <= b <= 0x7E for b in name), "AIR name %r" % air["name"])
        head += word(len(name)) + name + bytes(-len(name) % 4)
        pre = air.get("preprocessed")
        head += (word(len(pre)) + word(log2_height(pre))) if pre else (word(0) + word(0))
        if pre:
            put_values(pre)
        head += word(1 if air["present"] else 0)
        if not air["present"]:
            continue
        cached, common, publics = air.get("cached", []), air["common"], air.get("public_values", [])
        check(len(cached) <= 7, "%d cached parts" % len(cached))
        check(len(publics) <= 2**16, "%d public values" % len(publics))
        check(all(0 <= v < P for v in publics), "a public value not in [0, p)")
        log_height = log2_height(common)
        check(all(log2_height(m) == log_height for m in cached), "main parts of different heights")
        head += word(log_height) + word(len(cached)) + b"".join(word(len(m)) for m in cached)
        head += word(len(common)) + word(len(publics)) + b"".join(word(v) for v in publics)
        for m in cached:
            put_values(m)
        put_values(common)
    with open(path, "wb") as f:
        f.write(b"VKSINPUT" + word(1) + word(len(head)) + head + values)


def interactions_airs(rows):
    """The "interactions" computation: example_decompose's rows (x, lo, hi, sum), x below 2^16 split
    into bytes that it looks up in example_byte_table, whose common main counts each byte's uses."""
    xs = [((r * 2654435761) % 2**32) >> 16 for r in range(rows)]
    sums, total = [], 0
    for x in xs:
        total = (total + x) % P
        sums.append(total)
    lo, hi = [x & 255 for x in xs], [x >> 8 for x in xs]
    multiplicity = [0] * 256
    for b in lo + hi:
        multiplicity[b] += 1
    return [
        {"name": "example_decompose", "preprocessed": None, "present": True, "cached": [],
         "common": [xs, lo, hi, sums], "public_values": [total]},
        {"name": "example_byte_table", "preprocessed": [list(range(256))], "present": True, "cached": [],
         "common": [multiplicity], "public_values": []},
    ]


def main(argv):
    parser = argparse.ArgumentParser(description="Writes a vkstark proving input (docs/proving-input.md).")
    parser.add_argument("computation", choices=["interactions"])
    parser.add_argument("--rows", type=int, required=True, help="example_decompose's rows, a power of two")
    parser.add_argument("--out", required=True, help="the .vki file to write")
    parser.add_argument("--tamper", choices=["multiplicity", "table"],
                        help="for tests: byte 0's multiplicity + 1 (breaks the bus), or 256 for the byte "
                        "table's 255 (not the key's preprocessed trace)")
    args = parser.parse_args(argv)
    if args.rows < 4 or args.rows > 2**24 or args.rows & (args.rows - 1):
        parser.error("--rows %d: not a power of two in [4, 2^24]" % args.rows)
    airs = interactions_airs(args.rows)
    if args.tamper == "multiplicity":
        airs[1]["common"][0][0] += 1
    elif args.tamper == "table":
        airs[1]["preprocessed"][0][255] = 256
    write_proving_input(args.out, airs)
    print("wrote %s: interactions, %d rows (proving input)" % (args.out, args.rows))


if __name__ == "__main__":
    main(sys.argv[1:])
