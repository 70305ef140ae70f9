#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_queries (fuzz/corpus/fuzz_queries/): structured pairs that
reach deep GJK/EPA code from the first run. The target reads its input with libFuzzer's
FuzzedDataProvider, which takes integers from the END of the buffer, so each seed is written as
the sequence of bytes the target consumes, reversed. Deterministic (fixed seed)."""
import os
import random

rng = random.Random(2026)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "fuzz_queries")


def i8(v):
    return (v + 128) & 0xFF  # ConsumeIntegral<int8_t> is -128 + byte


def hull(seq, kind, scale, flags, n, inflate=None):
    seq += [kind | (0x80 if inflate is not None else 0)]
    if inflate is not None:
        seq += [inflate[0]]  # inflation scale index
    seq += [scale, i8(rng.randint(-20, 20)), i8(rng.randint(-20, 20)), i8(rng.randint(-20, 20))]
    seq += [flags, n - 1]
    seq += [i8(rng.randint(-127, 127)) for _ in range(3 * n)]
    if flags & 8:
        seq += [i8(rng.randint(-127, 127)) for _ in range(n)]
    if inflate is not None:
        seq += [inflate[1]]


def primitive(seq, ptype, scale, inflate=None):
    seq += [4 | (0x80 if inflate is not None else 0)]
    if inflate is not None:
        seq += [inflate[0]]
    seq += [scale, ptype, rng.randint(64, 255), rng.randint(0, 255)]
    if ptype == 1:
        seq += [rng.randint(64, 255)]
    if inflate is not None:
        seq += [inflate[1]]


def pose(seq, spread):
    seq += [rng.randint(0, 199)]
    seq += [i8(rng.randint(-127, 127)) for _ in range(4)]
    seq += [i8(rng.randint(-spread, spread)) for _ in range(3)]


def tail(seq, approach):
    seq += [i8(rng.randint(-127, 127)) for _ in range(9)]  # probes
    seq += [0]  # no garbage cache
    seq += [i8(rng.randint(-127, 127)) for _ in range(7)]  # common motion
    seq += [1 if approach else 0]
    seq += [i8(rng.randint(-30, 30)) for _ in range(3)]


def write(name, seq):
    with open(os.path.join(out, name), "wb") as f:
        f.write(bytes(reversed(seq)))


for i in range(24):
    seq = [rng.randint(0, 11)]  # solver (4) x support method (3)
    for body in range(2):
        choice = (i + body) % 4
        inflate = (rng.randint(0, 5), rng.randint(0, 253)) if rng.random() < 0.3 else None
        if choice == 0:
            primitive(seq, rng.randint(0, 3), 2, inflate)
        elif choice == 3:
            primitive(seq, rng.randint(0, 3), rng.choice([1, 2, 4]), inflate)
        else:
            flags = rng.choice([0, 0, 0, 1, 2, 4, 8])
            hull(seq, rng.choice([2, 3]), rng.choice([1, 2, 4]), flags, rng.randint(4, 64), inflate)
    pose(seq, 60)
    pose(seq, 60)
    tail(seq, approach=i % 2 == 0)
    write("structured_%02d" % i, seq)

# Awkward values: raw doubles, special values, invalid primitive sizes, raw pose matrices.
for i in range(8):
    data = bytes(rng.randint(0, 255) for _ in range(rng.randint(40, 400)))
    write("random_%02d" % i, list(reversed(data)))
for i, kind in enumerate([0, 1, 5, 1]):
    seq = [0, kind, rng.randint(1, 8)]
    seq += [rng.randint(0, 40) for _ in range(60)]
    write("special_%02d" % i, seq + [4, 2, 0, 100, 100, 0] + [240] + [rng.randint(0, 40) for _ in range(12)])
