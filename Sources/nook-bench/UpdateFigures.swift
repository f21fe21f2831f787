import NookActivities

extension DaemonFigures {
    /// `update_to_frame_ms_p99`: an update of the card on the glass until the mock
    /// has presented the redrawn frame, in process, as nookd's queue and screen run it. Samples
    /// are 30 ms apart, so the mock's vblank pacing (60 Hz) adds no wait: what is measured is
    /// the event's way to the screen, the redraw and the present.
    func updateToFrameP99(rounds count: Int = 3) async -> Spread {
        await rounds(count) { await updateToFrameRound() }
    }

    /// One round of 300 updates: their p99.
    private func updateToFrameRound() async -> Double {
        let stack = await InProcessScreen()
        let (presented, queue) = (stack.presented, stack.queue)
        var card = NookActivity(title: "Downloading", subtitle: "nook-1.2.tar.gz", systemImage: "arrow.down.circle",
                                tint: .named(.blue), presentation: .blocker(timeout: nil), progress: 0)
        card.transition = .milliseconds(20)
        await queue.enqueue(card)
        while await queue.snapshot().currentPhase != .presented { try? await Task.sleep(for: .milliseconds(5)) }
        var samples: [Double] = []
        for index in 1...300 {
            try? await Task.sleep(for: .milliseconds(30))
            presented.reset()
            let progress = Double(index) / 300
            let start = ContinuousClock.now
            _ = try? await queue.update(card.id) { current in
                var changed = current
                changed.progress = progress
                return changed
            }
            await presented.wait()
            samples.append((presented.at! - start).nookSeconds * 1000)
        }
        stack.stop()
        samples.sort()
        return samples[Int(Double(samples.count - 1) * 0.99)]
    }
}
