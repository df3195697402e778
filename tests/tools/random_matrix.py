#!/usr/bin/env python3
"""Writes a seeded random transfer matrix for hrelay-plan tests.

Usage: random_matrix.py P SHAPE SEED > matrix.txt
SHAPE: dense, sparse, hot-receiver, hot-sender, permutation, heavy-tailed, zero, one-message.
"""
import random
import sys


def matrix(p, shape, rng):
    m = [[0] * p for _ in range(p)]
    hot = rng.randrange(p)
    for i in range(p):
        for j in range(p):
            if shape == "dense":
                m[i][j] = rng.randrange(1 << 20)
            elif shape == "sparse":
                m[i][j] = rng.randrange(1, 1 << 30) if rng.randrange(p) < 3 else 0
            elif shape == "hot-receiver":
                m[i][j] = rng.randrange(1, 1 << 24) if j == hot else (rng.randrange(1000) if rng.randrange(p) < 2 else 0)
            elif shape == "hot-sender":
                m[i][j] = rng.randrange(1, 1 << 24) if i == hot else (rng.randrange(1000) if rng.randrange(p) < 2 else 0)
            elif shape == "heavy-tailed":
                m[i][j] = int(rng.paretovariate(1.2) * 100) if rng.randrange(p) < 4 else 0
    if shape == "permutation":
        perm = list(range(p))
        rng.shuffle(perm)
        for i in range(p):
            m[i][perm[i]] = rng.randrange(1, 1 << 40)
    if shape == "one-message" and p > 1:
        i, j = rng.sample(range(p), 2)
        m[i][j] = rng.randrange(1, 1 << 50)
    return m


def main():
    if len(sys.argv) != 4 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) == 2 else 2)
    p, shape, seed = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    rng = random.Random(seed)
    print("# random %s matrix, p=%d, seed=%d" % (shape, p, seed))
    for row in matrix(p, shape, rng):
        print(" ".join(str(x) for x in row))


if __name__ == "__main__":
    main()
