#!/usr/bin/env python3
"""Reads a guest's DRM trace (drm_vblank_event and drm_vblank_event_delivered lines) and prints
frame_interval_ms p50/p99 and the skipped vblanks between nookd's consecutive flips during its
slides. Intervals longer than 500 ms are not frame intervals (the dwell between slide-in and
slide-out) and are left out. Exits 1 when no slide frames were found, when two flips completed
at the same vblank, or when the time between two flips is not whole vblank periods (±1 ms)."""
import re, sys
vblank_time, delivered = {}, []
for line in open(sys.argv[1]):
    match = re.search(r'drm_vblank_event: crtc=\d+, seq=(\d+), time=(\d+)', line)
    if match: vblank_time[int(match[1])] = int(match[2]) / 1e6
    match = re.search(r'drm_vblank_event_delivered: file=\S+, crtc=\d+, seq=(\d+)', line)
    if match: delivered.append(int(match[1]))
flips = [(seq, vblank_time[seq]) for seq in delivered if seq in vblank_time]
period = None
if len(vblank_time) > 1:
    seqs = sorted(vblank_time)
    period = (vblank_time[seqs[-1]] - vblank_time[seqs[0]]) / (seqs[-1] - seqs[0])
intervals, skipped, doubled, off_vblank = [], 0, 0, 0
for (seq_a, time_a), (seq_b, time_b) in zip(flips, flips[1:]):
    if time_b - time_a > 500: continue
    intervals.append(time_b - time_a)
    skipped += max(0, seq_b - seq_a - 1)
    doubled += seq_b == seq_a
    # A flip completes at a vblank: the time between two is whole vblank periods.
    off_vblank += abs((time_b - time_a) - (seq_b - seq_a) * period) > 1.0
if not intervals:
    print(f'no slide frames in the trace ({len(delivered)} flip events, {len(vblank_time)} vblanks)'); sys.exit(1)
intervals.sort()
p = lambda q: intervals[min(len(intervals) - 1, int(q * len(intervals)))]
print(f'frame_interval_ms_p50 {p(0.5):.1f}, frame_interval_ms_p99 {p(0.99):.1f}, vblank period {period:.2f} ms, '
      f'{len(intervals)} intervals, {skipped} vblanks skipped, {doubled} flips sharing a vblank, {off_vblank} off a vblank')
sys.exit(1 if doubled or off_vblank else 0)
