#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A closed-loop sketch of one vault under issue-time scheduling (ours; not part of the model).

It backs the argument of docs/model.md, "Still not matched, and why": whether a vault
controller that schedules over its queued requests (the "per-bank queues" mechanism) moves the
saturation point of the 1 / 2 / 4 / 8-bank patterns to more outstanding requests. Only the
parts that decide the knee are in it, with the model's values (docs/model.md, parameters):

- n GUPS ports, 64 tags each [IISWC]; a port issues one read per 3 cycles (port_cmd_cycles)
  and takes one 128 B response per 12 cycles of 5.333 ns (8 beats + port_packet_cycles 4):
  2.5 GB/s counted at 160 B per read, as the study counts;
- a read reaches the vault's input FWD ns after issue (the model's TX path, link and cube
  input, about 320 ns) and its response the port RET ns after its data (about 300 ns);
  --jitter adds an exponential delay of that mean (ns) to the forward path;
- the vault: a FIFO input buffer (unbounded) in front of a queue of Q requests; at most one
  activate per 5 slots of 3.2 ns (a 128 B read's 4 transfers and 1 turnaround slot on the
  vault bus: 10 GB/s counted), each bank (layer) held 13 slots (41.6 ns, read_row_to_data_end);
  banks chosen at random. Policy 'fifo' issues only the queue's head, 'ready' the oldest queued
  request whose bank is free (FR-FCFS under closed page: no row hits).

Prints bandwidth (GB/s) for 1..9 ports and the saturation point the study's way (first port
count within 5 % of the 9-port bandwidth, Little's law there).
Usage: vault_sched_sketch.py POLICY Q [--jitter NS]
"""
import heapq
import random
import sys

SLOT = 3.2
BUS = 5
HOLD = 13
DOFF = 7  # activate to first transfer: tRCD + tCL in slots
FWD = 320.0
RET = 300.0
PORT = 64.0
CMD = 16.0
ISSUE, ARRIVE, RESP, DONE = range(4)


def run(nports, nbanks, policy, q, jitter=0.0, sim_us=300.0, warm_us=60.0, seed=1):
    rnd = random.Random(seed)
    ev = []
    for p in range(nports):
        for k in range(64):
            heapq.heappush(ev, (k * CMD, ISSUE, p, 0.0))
    inbuf, queue = [], []
    bank_free = [0] * nbanks
    port_free = [0.0] * nports
    last = -BUS
    done, lat = 0, 0.0
    t_end, t_warm = sim_us * 1000, warm_us * 1000
    slot = 0
    while True:
        now = slot * SLOT
        while ev and ev[0][0] <= now:
            t, kind, p, t0 = heapq.heappop(ev)
            if kind == ISSUE:
                d = FWD + (rnd.expovariate(1.0 / jitter) if jitter else 0.0)
                heapq.heappush(ev, (t + d, ARRIVE, p, t))
            elif kind == ARRIVE:
                inbuf.append((p, t0, rnd.randrange(nbanks)))
            elif kind == RESP:
                s = max(t, port_free[p])
                port_free[p] = s + PORT
                heapq.heappush(ev, (s + PORT, DONE, p, t0))
            else:
                if t_warm <= t < t_end:
                    done += 1
                    lat += t - t0
                heapq.heappush(ev, (t, ISSUE, p, 0.0))
        if now >= t_end:
            break
        while inbuf and len(queue) < q:
            queue.append(inbuf.pop(0))
        if queue and slot >= last + BUS:
            cand = queue[:1] if policy == "fifo" else queue
            pick = next((i for i, r in enumerate(cand) if bank_free[r[2]] <= slot), None)
            if pick is not None:
                p, t0, b = queue.pop(pick)
                bank_free[b] = slot + HOLD
                last = slot
                heapq.heappush(ev, ((slot + DOFF + BUS - 1) * SLOT + RET, RESP, p, t0))
        if not queue and not inbuf and ev:
            slot = max(slot + 1, int(ev[0][0] / SLOT))
        else:
            slot += 1
    rate = done / ((t_end - t_warm) * 1e-9)
    return rate * 160 / 1e9, rate * (lat / max(done, 1)) * 1e-9


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("fifo", "ready"):
        sys.exit("usage: vault_sched_sketch.py fifo|ready Q [--jitter NS]")
    policy, q = sys.argv[1], int(sys.argv[2])
    jitter = float(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--jitter" else 0.0
    for nb in (1, 2, 4, 8):
        r = [run(n, nb, policy, q, jitter) for n in range(1, 10)]
        sat = next(i for i in range(9) if r[i][0] >= 0.95 * r[8][0])
        print(f"{policy} Q={q} jitter={jitter:g} {nb} banks: " +
              " ".join(f"{bw:.2f}" for bw, _ in r) +
              f"  saturation: {sat + 1} ports, {r[sat][1]:.0f} in flight", flush=True)


if __name__ == "__main__":
    main()
