/// When an idle worker gives the memory malloc holds free back to the kernel (`malloc_trim`).
///
/// glibc keeps the freed pages of its fragmented arenas: a relay that served 10,000 apps
/// (1,000 pushing) stayed at 128 MiB RSS once idle, 56 MiB once trimmed. Trimming walks every
/// arena under its lock, so it runs at most once per `interval`; clients are dropped in
/// waves as apps go idle one after another, so a wave the interval held back is trimmed
/// once the interval has passed (the worker ticks every second), never forgotten. A trim
/// waits until the dropped clients are shut down: their buffers are what it gives back.
struct MemoryReleaseSchedule {
    let interval: Duration
    private var last: ContinuousClock.Instant?
    /// Clients were dropped since the last trim.
    private var pending = false
    /// Drops whose clients are still shutting down.
    private var shuttingDown = 0

    init(interval: Duration) {
        self.interval = interval
    }

    /// Clients were dropped; their shutdown begins.
    mutating func dropped() {
        pending = true
        shuttingDown += 1
    }

    /// A drop's clients are shut down. Returns whether to trim now.
    mutating func shutDown(now: ContinuousClock.Instant) -> Bool {
        shuttingDown -= 1
        return tick(now: now)
    }

    /// Returns whether to trim now: something was dropped, everything dropped is shut
    /// down, and the last trim is `interval` ago.
    mutating func tick(now: ContinuousClock.Instant) -> Bool {
        guard pending, shuttingDown == 0, last.map({ now - $0 >= interval }) ?? true else { return false }
        last = now
        pending = false
        return true
    }
}
