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

    /// A tap on the notification `id` (nil: cannot be deduplicated).
    mutating func tap(_ item: Item, id: String?) -> Item? {
        if let id {
            if seen.contains(id) { return nil }
            seen.append(id)
            if seen.count > memory { seen.removeFirst(seen.count - memory) }
        }
        guard isReady else {
            held = item
            return nil
        }
        return item
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
