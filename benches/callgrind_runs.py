"""The runs benches/callgrind_lib.sh records in runs.txt, as instructions per call."""


def per_call_of(runs):
    """A function (side, round, depth) -> the instructions per call of that side in that
    round at that depth: (dump of LARGE - dump of SMALL) / (calls LARGE - calls SMALL),
    from the lines "SIDE ROUND DEPTH CALLS INSTRUCTIONS" of the file `runs`."""
    rows = {}
    for line in open(runs):
        side, rnd, depth, calls, total = line.split()
        rows.setdefault((side, int(rnd), int(depth)), []).append((int(calls), int(total)))

    def per_call(side, rnd, depth):
        (c1, i1), (c2, i2) = sorted(rows[(side, rnd, depth)])
        return (i2 - i1) / (c2 - c1)

    return per_call
