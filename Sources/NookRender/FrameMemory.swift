internal import CPangoCairo

/// How the process's allocator treats frames (issue 19): a frame of a bar panel is 1.6–3.7 MiB,
/// and glibc serves such a block with a mapping of its own only until the first one is freed;
/// its dynamic threshold then moves blocks that size into the heap, where memory freed by an
/// idle screen stays resident. nookd fixes the threshold so frames always come and go as
/// mappings, and trims the heap when the screen lets go of its spare frames.
public enum FrameMemory {
    /// Blocks from 256 KiB up are mappings of their own, returned to the system when freed.
    public static func keepFramesAsOwnMappings() {
        _ = mallopt(M_MMAP_THRESHOLD, 256 * 1024)
    }

    /// Returns free heap memory to the system (`malloc_trim`), after a burst.
    static func trim() {
        _ = malloc_trim(0)
    }
}
