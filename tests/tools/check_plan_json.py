#!/usr/bin/env python3
"""Independent checker of hrelay-plan's JSON output (README "Plan format").

Usage: check_plan_json.py MATRIX PLAN.json [--exact]

Reads the matrix (P lines of P integers, '#' comments) and the plan, and checks, without any
hrelay code: ranks in range, no self-transfer, the step constraint of the plan's duplex mode,
every byte of every off-diagonal message moved from a rank that holds it and delivered to its
target exactly once, the figures the plan states (bandwidth_bytes, lower_bound_bytes, ns,
max_degree) and the model's lower bound (beta * bound bytes). With --exact (a direct plan
planned with --min-step 0) also: in full duplex, bandwidth term (sum over steps of the largest
transfer) == lower bound max_i max(sent_i, received_i) and steps <= messages + 2P; in half
duplex, bandwidth term <= 3 ceil(h / 2), h = max_i (sent_i + received_i).

Node plans (a "topology" object): the step rule is checked for nodes instead of ranks: in every
step the transfers between different nodes go from each node to at most nic_peers other nodes
and into each node from at most nic_peers (half duplex: no node both sends and receives them);
a rank may take part in several transfers. Also checked: node_of (P labels, nodes numbered by
their lowest rank), the node bound (busiest NIC's off-node bytes: max(sent, received), half
duplex their sum), the on-node bound and the NIC bandwidth term (sum over steps of the largest
node load). With --exact (node-direct or node-aggregate, --min-step 0): node-aggregate's NIC
bandwidth term == node bound (full duplex), node-direct's within the rounding of its cuts (at
most (K - 1) bytes per step, K the most rank messages between two nodes); half duplex within
3 ceil(h / 2) of the node bound h (plus that rounding).

Exit 0 when all hold, 1 otherwise (the first violation is printed).
"""
import json
import sys


def read_matrix(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                rows.append([int(x) for x in line])
    return rows


def fail(msg):
    print("check_plan_json: " + msg)
    sys.exit(1)


def check_nics(s, step, node_of, peers, half):
    """The NIC rule of a node plan in step s; returns the step's largest node load."""
    out, into, sent, recvd = {}, {}, {}, {}
    for tr in step:
        a, b = node_of[tr["src"]], node_of[tr["dst"]]
        if a == b:
            continue
        size = sum(sg["bytes"] for sg in tr["segments"])
        out.setdefault(a, set()).add(b)
        into.setdefault(b, set()).add(a)
        sent[a] = sent.get(a, 0) + size
        recvd[b] = recvd.get(b, 0) + size
    for a, peer in list(out.items()) + list(into.items()):
        if len(peer) > peers:
            fail("step %d: node %d talks to %d other nodes (at most %d)" % (s, a, len(peer), peers))
    if half and set(out) & set(into):
        fail("step %d: a node sends and receives (half duplex)" % s)
    nodes = set(sent) | set(recvd)
    if half:
        return max([sent.get(a, 0) + recvd.get(a, 0) for a in nodes] + [0])
    return max([max(sent.get(a, 0), recvd.get(a, 0)) for a in nodes] + [0])


def check_topology(m, plan, topo, loads, half, exact):
    """The node figures of a node plan and, with exact, its NIC bandwidth term."""
    p, node_of = len(m), topo["node_of"]
    seen = []
    for a in node_of:
        if a not in seen:
            seen.append(a)
    if len(node_of) != p or seen != list(range(topo["nodes"])):
        fail("node_of %s: not %d ranks on nodes numbered by their lowest rank" % (node_of, p))
    n = topo["nodes"]
    sent, recvd = [0] * n, [0] * n
    lsent, lrecvd = [0] * p, [0] * p
    pairs = {}
    for i in range(p):
        for j in range(p):
            if i == j or not m[i][j]:
                continue
            a, b = node_of[i], node_of[j]
            if a != b:
                sent[a] += m[i][j]
                recvd[b] += m[i][j]
                pairs[(a, b)] = pairs.get((a, b), 0) + 1
            else:
                lsent[i] += m[i][j]
                lrecvd[j] += m[i][j]
    both = (lambda x, y: x + y) if half else max
    bound = max([both(x, y) for x, y in zip(sent, recvd)] + [0])
    local = max([both(x, y) for x, y in zip(lsent, lrecvd)] + [0])
    stated = {"nic_bound_bytes": bound, "local_bound_bytes": local,
              "nic_bandwidth_bytes": sum(loads)}
    for key, want in stated.items():
        if topo.get(key) != want:
            fail("topology.%s is %s, the plan has %d" % (key, topo.get(key), want))
    if not exact:
        return
    bw = sum(loads)
    slack = 0 if plan["algorithm"] == "node-aggregate" else \
        (max(list(pairs.values()) + [1]) - 1) * len(plan["steps"])
    limit = 3 * ((bound + 1) // 2) if half else bound
    if bw < bound or bw > limit + slack:
        fail("NIC bandwidth term %d outside [%d, %d + %d]" % (bw, bound, limit, slack))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    exact = "--exact" in sys.argv
    if len(args) != 2:
        print(__doc__)
        sys.exit(2)
    m = read_matrix(args[0])
    with open(args[1]) as f:
        plan = json.load(f)
    p = len(m)
    if plan["p"] != p:
        fail("plan for %d ranks, matrix of %d" % (plan["p"], p))
    half = plan["duplex"] == "half"
    topo = plan.get("topology")
    node_of = topo["node_of"] if topo else list(range(p))
    # holders[(o, t)] = list of [start, end, holder]
    holders = {}
    for o in range(p):
        for t in range(p):
            if o != t and m[o][t]:
                holders[(o, t)] = [[0, m[o][t], o]]
    bandwidth = 0
    loads = []  # node plans: the largest node load of every step
    for s, step in enumerate(plan["steps"]):
        sends, recvs = set(), set()
        arrivals = []
        widest = 0
        for tr in step:
            src, dst = tr["src"], tr["dst"]
            if not (0 <= src < p and 0 <= dst < p) or src == dst:
                fail("step %d: bad transfer %d -> %d" % (s, src, dst))
            if not topo and (src in sends or dst in recvs):
                fail("step %d: rank in two transfers" % s)
            if not topo and half and (src in recvs or dst in sends):
                fail("step %d: half duplex violated" % s)
            sends.add(src)
            recvs.add(dst)
            size = 0
            for sg in tr["segments"]:
                key = (sg["origin"], sg["target"])
                lo, n = sg["offset"], sg["bytes"]
                size += n
                if key not in holders or n <= 0:
                    fail("step %d: segment of non-message %s" % (s, key))
                if src == key[1]:
                    fail("step %d: target forwards its own data" % s)
                for h in holders[key]:
                    if h[2] == src and h[0] <= lo and lo + n <= h[1]:
                        break
                else:
                    fail("step %d: rank %d sends [%d,%d) of %s it does not hold" % (s, src, lo, lo + n, key))
                rest = [x for x in holders[key] if x is not h]
                if h[0] < lo:
                    rest.append([h[0], lo, src])
                if lo + n < h[1]:
                    rest.append([lo + n, h[1], src])
                holders[key] = rest
                arrivals.append((key, lo, lo + n, dst))
            widest = max(widest, size)
        for key, lo, hi, dst in arrivals:
            holders[key].append([lo, hi, dst])
        bandwidth += widest
        if topo:
            loads.append(check_nics(s, step, node_of, topo["nic_peers"], half))
    for key, hs in holders.items():
        for lo, hi, who in hs:
            if who != key[1]:
                fail("bytes [%d,%d) of message %s end at rank %d" % (lo, hi, key, who))
    sent = [sum(m[i][j] for j in range(p) if j != i) for i in range(p)]
    recv = [sum(m[i][j] for i in range(p) if i != j) for j in range(p)]
    lb = max([max(a, b) for a, b in zip(sent, recv)] + [0])
    if half:
        lb = max([a + b for a, b in zip(sent, recv)] + [0])
    nnz = len(holders)
    outdeg = [sum(1 for j in range(p) if j != i and m[i][j]) for i in range(p)]
    indeg = [sum(1 for i in range(p) if i != j and m[i][j]) for j in range(p)]
    if half:
        degree = max([a + b for a, b in zip(outdeg, indeg)] + [0])
    else:
        degree = max([max(a, b) for a, b in zip(outdeg, indeg)] + [0])
    stated = {"bandwidth_bytes": bandwidth, "lower_bound_bytes": lb, "ns": len(plan["steps"]),
              "max_degree": degree}
    for key, want in stated.items():
        if plan.get(key) != want:
            fail("%s is %s, the plan has %d" % (key, plan.get(key), want))
    if topo:
        check_topology(m, plan, topo, loads, half, exact)
    elif exact and half:
        if bandwidth > 3 * ((lb + 1) // 2):
            fail("half duplex: bandwidth term %d > 3 ceil(%d / 2)" % (bandwidth, lb))
    elif exact:
        if bandwidth != lb:
            fail("bandwidth term %d != lower bound %d" % (bandwidth, lb))
        if len(plan["steps"]) > nnz + 2 * p:
            fail("%d steps > %d messages + 2P" % (len(plan["steps"]), nnz))
    model = plan.get("model", {})
    if "lower_bound_s" in model:
        # the busiest rank's bytes at the model's bandwidth (the benchmark's bound)
        want = lb * model["beta_s_per_byte"]
        if abs(model["lower_bound_s"] - want) > 1e-9 * max(1.0, want):
            fail("model.lower_bound_s %g != %g" % (model["lower_bound_s"], want))
    print("ok: p=%d steps=%d bandwidth=%d bound=%d messages=%d" % (p, len(plan["steps"]), bandwidth, lb, nnz))


if __name__ == "__main__":
    main()
