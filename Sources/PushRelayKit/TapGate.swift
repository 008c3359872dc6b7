/// When a tapped notification may be delivered: taps before the UI is ready are held
/// (a cold start: the screen to push onto does not exist yet) and delivered when it is;
/// each notification is delivered once, even when the OS reports the tap twice (launch
/// options and the delegate).
///
/// Pure: the events return what to deliver now.
struct TapGate<Item> {
    private(set) var isReady = false
    /// The tap waiting for the UI; a newer tap replaces it (one screen to open, the last chosen).
    private(set) var held: Item?
    private var seen: [String] = []
    private let memory: Int

    init(memory: Int = 64) {
        self.memory = memory
    }

    /// What a tap leads to now.
    struct Tap {
        /// To deliver now; nil when held, unrouted, or a repeat.
        var deliver: Item?
        /// The first report of this notification's tap (false for a repeat, or without an id).
        var isFirst: Bool
    }

    /// A tap on the notification `id` (nil: cannot be deduplicated) leading to `item` (nil: unrouted).
    mutating func tap(_ item: Item?, id: String?) -> Tap {
        if let id {
            if seen.contains(id) { return Tap(deliver: nil, isFirst: false) }
            seen.append(id)
            if seen.count > memory { seen.removeFirst(seen.count - memory) }
        }
        guard let item else { return Tap(deliver: nil, isFirst: id != nil) }
        guard isReady else {
            held = item
            return Tap(deliver: nil, isFirst: id != nil)
        }
        return Tap(deliver: item, isFirst: id != nil)
    }

    /// The UI is ready: the held tap, once.
    mutating func ready() -> Item? {
        isReady = true
        defer { held = nil }
        return held
    }

    /// The UI went away (scene torn down): hold taps again.
    mutating func notReady() {
        isReady = false
    }
}
