/// How many requests a pool keeps in flight, and on how many connections: the window
/// follows the bandwidth-delay product (rate × round trip), as TCP Vegas does. APNs 150 ms
/// away takes 15,000 requests in flight for 100,000 a second, and the same 15,000 on a
/// server next door only queue there.
///
/// Pure: the pool reports round trips (PING and its ACK), answers with their latency (sent
/// → answered), errors and how many requests it holds, each with the time (the clock's
/// monotonic seconds); the window answers with its new size when it changes.
///
/// - The base round trip is the least seen over the current and the previous `epoch`
///   (PINGs and answers alike), so a path that gets longer is noticed within two epochs;
///   at once when a PING sent while the pool held no request (`pathMeasured`: nothing of
///   ours queued before it) comes back later than the base. Until then every answer of the
///   longer path looks queued, and the window stays at its floor (for 10–20 s, APNs 150 ms
///   away after a spell next door).
/// - Once per round trip (at least `minimumInterval`, and `minimumAnswers` answers), the
///   answers of that interval give the queueing delay: their least latency less the base
///   (as Vegas takes the least round trip of each round). Not their mean: requests go out
///   in batches and each side works through a batch one request at a time, so the last of
///   a batch is answered later than the first without any queue building up; the mean
///   counted that spread, which grows with the window, as queueing. A queue that stays (a
///   full CPU, a slower path) delays every answer, the least one too.
///   The window grows by half when it was used (its load reached ¾ of it) and the requests
///   barely queued (`growBelow`: the round trip, not the CPU of either side, limits the
///   rate), then holds a round trip: the answers of the next one were mostly sent before it
///   grew, and growing on them too went past what the CPUs take (from 2,000 to the ceiling
///   in a second, then a queue of 100–400 ms that shrinking took seconds to drain, every
///   targeted push waiting in it).
/// - It grows only while the requests the server had (on streams) as the round trip began
///   are at most `rateGain` × what the answers a second of that round trip need at the base
///   round trip: more is requests waiting somewhere (a CPU, ours or the server's, or a batch
///   worked through one by one), even when the least answer does not show it. (Without it,
///   APNs 300 ms away on a 2-core box grew the window to 30,000 requests while 20,000 a
///   second went out: 600 ms in flight, targeted pushes waiting up to 880 ms behind them.)
///   Requests waiting for a stream are not counted: the connections a growth opens take
///   streams one more per answer, and counting the requests waiting for them held each
///   growth for 8 round trips (2.5 s at 300 ms) until they caught up. It does not grow past
///   twice what is on streams, so a pool whose connections do not open stays near its size.
///   The rate is the lesser of that round trip's and the one before: answers held up by a
///   stall come in a burst when it ends (one round trip of them measured 31,831 a second in
///   a broadcast that averaged 16,432, and grew the window from 10,125 to 15,187).
/// - When the answers queued beyond `shrinkAbove`, it shrinks to what that round trip's rate
///   needs at the base round trip, at most by half. It halves on an error
///   (429, 5xx, a reset, a lost connection) and does not grow at the next round trip. Never
///   below `floor` nor above `ceiling`.
/// - Connections: `baseConnections`, or as many as the window needs at the server's
///   SETTINGS_MAX_CONCURRENT_STREAMS each (`streamsPerConnection`), up to `maxConnections`:
///   with APNs' 1,000 streams, more connections only when the round trip limits.
struct InFlightWindow: Equatable {
    struct Limits: Equatable {
        /// The window at start, and the least it shrinks to.
        var floor: Int
        var ceiling: Int
        /// Connections for the floor's worth: as many as when nothing is far away.
        var baseConnections: Int
        var maxConnections: Int
    }

    /// How long a least round trip counts as the base.
    static let epoch = 10.0
    static let minimumInterval = 0.02
    static let minimumAnswers = 32
    /// How far beyond rate × base round trip the window may grow.
    static let rateGain = 1.25

    let limits: Limits
    /// Requests in flight allowed now.
    private(set) var size: Int
    /// The server's streams per connection, once it raised them above 1 (APNs allows one
    /// until a request carried a valid token); APNs' 1,000 until then.
    private(set) var streamsPerConnection = 1000
    private var epochMinimum = Double.infinity
    private var previousEpochMinimum = Double.infinity
    private var epochEndsAt: Double?
    private var intervalStartedAt: Double?
    private var intervalEndsAt: Double?
    private var leastLatency = Double.infinity
    private var answers = 0
    private var peakLoad = 0
    /// Requests on streams as the interval began: what its answers are the answers of.
    private var sentAtStart = 0
    /// Decisions to come that may not grow it: the next one after a growth or an error.
    private var heldDecisions = 0
    /// The rate of the last interval decided on, in answers a second (for the logs, and the
    /// next decision's bound).
    private(set) var lastRate: Double?
    /// The queueing delay of the last interval decided on, in seconds (for the logs).
    private(set) var lastQueueing: Double?

    init(limits: Limits) {
        var limits = limits
        limits.ceiling = max(1, limits.ceiling)
        limits.floor = min(max(1, limits.floor), limits.ceiling)
        limits.maxConnections = max(1, limits.maxConnections)
        limits.baseConnections = min(max(1, limits.baseConnections), limits.maxConnections)
        self.limits = limits
        size = limits.floor
    }

    /// The least round trip of the last one or two epochs, in seconds.
    var baseRoundTrip: Double? {
        let least = min(epochMinimum, previousEpochMinimum)
        return least.isFinite ? least : nil
    }

    /// The connections the window needs: at least `baseConnections`, else enough streams for it.
    var connections: Int {
        let needed = (size + streamsPerConnection - 1) / streamsPerConnection
        return min(limits.maxConnections, max(limits.baseConnections, needed))
    }

    /// Queueing below this, in seconds, leaves the round trip as what limits the rate.
    static func growBelow(base: Double) -> Double { max(0.005, base * 0.1) }

    /// Queueing beyond this, in seconds, means a side's CPU (or the path) is full. (Tighter
    /// thresholds, 15–25 ms and base/8, were tried on 2026-12-03: on a loaded 2-core box the
    /// least answer is 15–70 ms late now and then from scheduling alone, each such round trip
    /// shrank the window, and at 300 ms the rate fell to 0.40 of the 0 ms one.)
    static func shrinkAbove(base: Double) -> Double { max(0.020, base * 0.25) }

    // MARK: events

    /// The server's SETTINGS_MAX_CONCURRENT_STREAMS on a connection.
    mutating func peerAllows(streams: Int) {
        if streams > 1 { streamsPerConnection = streams }
    }

    /// A PING came back after `seconds`.
    mutating func roundTrip(_ seconds: Double, now: Double) {
        sample(seconds, now: now)
    }

    /// A PING came back after `seconds`, sent while the pool held no request: the path's
    /// round trip alone. A longer one than the base is the new base (the path got longer);
    /// the interval under way, measured against the old one, starts again.
    mutating func pathMeasured(_ seconds: Double, now: Double) {
        if let base = baseRoundTrip, seconds > base {
            (epochMinimum, previousEpochMinimum) = (.infinity, .infinity)
            (intervalStartedAt, intervalEndsAt, leastLatency, answers, peakLoad) = (nil, nil, .infinity, 0, 0)
        }
        sample(seconds, now: now)
    }

    /// A request was answered `latency` seconds after it was sent, while the pool held
    /// `load` requests (on streams and waiting for one), `sent` of them on streams.
    ///
    /// - Returns: the new size, when it changed.
    mutating func answered(latency: Double, load: Int, sent: Int, now: Double) -> Int? {
        sample(latency, now: now)
        leastLatency = min(leastLatency, latency)
        answers += 1
        peakLoad = max(peakLoad, load)
        guard let base = baseRoundTrip else { return nil }
        guard let endsAt = intervalEndsAt, let startedAt = intervalStartedAt else {
            (intervalStartedAt, intervalEndsAt, sentAtStart) = (now, now + max(base, Self.minimumInterval), sent)
            return nil
        }
        guard now >= endsAt, answers >= Self.minimumAnswers else { return nil }
        let queueing = leastLatency - base
        let rate = Double(answers) / max(now - startedAt, 1e-6)
        let steadyRate = min(rate, lastRate ?? rate)
        (lastQueueing, lastRate) = (queueing, rate)
        let used = peakLoad * 4 >= size * 3
        let sentBefore = sentAtStart
        (leastLatency, answers, peakLoad) = (.infinity, 0, 0)
        (intervalStartedAt, intervalEndsAt, sentAtStart) = (now, now + max(base, Self.minimumInterval), sent)
        let held = heldDecisions > 0
        heldDecisions = max(0, heldDecisions - 1)
        if queueing > Self.shrinkAbove(base: base) {
            // To what the rate of this round trip takes at the base round trip (rate = size ÷
            // (base + queueing)), at most halved: the queue drains in a round trip or two.
            let fits = Double(size) * (base + Self.growBelow(base: base)) / (base + queueing)
            return resize(max(size / 2, Int(fits)))
        } else if used, queueing < Self.growBelow(base: base), !held, size <= 2 * sentBefore,
                  Double(sentBefore) <= Self.rateGain * steadyRate * base {
            heldDecisions = 1
            return resize(size + size / 2)
        }
        return nil
    }

    /// An error that says the server (or the path to it) is overwhelmed.
    ///
    /// - Returns: the new size, when it changed.
    mutating func failed() -> Int? {
        heldDecisions = 1
        return resize(size / 2)
    }

    // MARK: helpers

    private mutating func sample(_ seconds: Double, now: Double) {
        if let endsAt = epochEndsAt, now >= endsAt {
            previousEpochMinimum = epochMinimum
            epochMinimum = .infinity
            epochEndsAt = now + Self.epoch
        } else if epochEndsAt == nil {
            epochEndsAt = now + Self.epoch
        }
        epochMinimum = min(epochMinimum, max(0, seconds))
    }

    private mutating func resize(_ wanted: Int) -> Int? {
        let new = min(limits.ceiling, max(limits.floor, wanted))
        guard new != size else { return nil }
        size = new
        return new
    }
}
