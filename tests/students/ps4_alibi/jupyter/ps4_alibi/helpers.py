def geometric_slopes(n):
    start = 2 ** (-8 / n)
    return [start ** (h + 1) for h in range(n)]
