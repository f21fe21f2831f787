internal import CPangoCairo
import NookActivities
import NookSystem

/// How the process's allocator treats frames: a frame of a bar panel is 1.6–3.7 MiB,
/// and glibc serves such a block with a mapping of its own only until the first one is freed;
/// its dynamic threshold then moves blocks that size into the heap, where memory freed by an
/// idle screen stays resident. nookd fixes the threshold so frames always come and go as
/// mappings, and trims the heap when the screen lets go of its spare frames.
public enum FrameMemory {
    /// Blocks from 256 KiB up are mappings of their own, returned to the system when freed.
    public static func keepFramesAsOwnMappings() {
        _ = mallopt(M_MMAP_THRESHOLD, 256 * 1024)
    }

    /// Returns free heap memory to the system (`malloc_trim`), after a burst, and (at most once
    /// a minute, as the bridges do) the code pages the cards faulted back in: an idle display
    /// runs only its clock's minute tick (`IdleTrim.dropPages`; the next card takes them back
    /// as minor faults, counted in `first_frame_after_idle_ms_p99`). Both run on a thread of
    /// their own (``inBackground(_:)``) and this returns at once.
    static func trim() {
        let now = MonotonicClock.seconds
        let dropPages = lastPageDrop.withLock { takePageDrop(now: now, last: &$0) }
        inBackground {
            _ = malloc_trim(0)
            if dropPages { IdleTrim.dropPages() }
        }
    }

    /// Runs `work` on the trimming thread, after the trims given before, and returns at once.
    /// Reading and parsing smaps is the most work an idle screen does; on the screen's own
    /// executor it held back what waits for the screen (a status request, the next card's first
    /// frame) for as long as it took, which a loaded machine stretches many times over.
    static func inBackground(_ work: @escaping @Sendable () -> Void) {
        trimmer.async(work)
    }

    /// Returns once the trims given so far are done (a benchmark's card must not share the
    /// machine with one).
    public static func waitForTrims() {
        trimmer.sync {}
    }

    private static let trimmer = SerialWorker(name: "nook.trim")

    /// Whether pages are dropped at `now` (seconds) after the last drop at `last`, which it
    /// then updates: reading smaps and dropping costs more than a card, so a display that
    /// goes idle every few seconds drops at most once a minute.
    static func takePageDrop(now: Double, last: inout Double?) -> Bool {
        guard last.map({ now >= $0 + IdleTrim.minimumInterval }) ?? true else { return false }
        last = now
        return true
    }

    private static let lastPageDrop = Locked<Double?>(nil)
}
