/// The spans an outcome write records its sent devices in (`delivery_spans`, migrations 0023
/// and 0025): a row per run of ids, holding the run's ids. A device's outcome for a message
/// is its `deliveries` row if it has one, else `sent` if a span of the message holds its id;
/// `POST /v3/devices/status` finds a device's last delivery among its app's spans.
///
/// A broadcast's or tag push's chunk is made in device id order, so its devices form one
/// narrow run. Scattered devices (a push to a list of devices, an alias) would make one wide
/// span that every status lookup in that range has to read and reject, so a run ends
/// wherever two ids lie more than `maxGap` apart.
public enum DeliverySpans {
    /// The widest gap kept inside a run: wider than the gaps between an app's devices in a
    /// chunk unless the app owns under about 0.1% of the ids, narrow enough that a span of
    /// scattered devices covers few others.
    static let maxGap: Int64 = 1024

    /// The distinct `ids` (any order) ascending, and the number of each one's run (0, 1, …):
    /// consecutive ids at most `maxGap` apart share a run.
    static func numbered(_ ids: [Int64], maxGap: Int64 = maxGap) -> (ids: [Int64], runs: [Int]) {
        var sorted: [Int64] = []
        var runs: [Int] = []
        sorted.reserveCapacity(ids.count)
        runs.reserveCapacity(ids.count)
        for id in ids.sorted() {
            guard let last = sorted.last, let run = runs.last else {
                sorted.append(id)
                runs.append(0)
                continue
            }
            if id == last { continue }
            let (gap, overflow) = id.subtractingReportingOverflow(last)
            sorted.append(id)
            runs.append(!overflow && gap <= maxGap ? run : run + 1)
        }
        return (sorted, runs)
    }

    /// SQL that is true when a span of message `message` holds device `device` (both SQL
    /// expressions of type bigint): the device's outcome for the message is `sent`. Found
    /// through the index `delivery_spans_message_ids`, as it is defined, in the message's
    /// partition (the plain equality is what prunes the others).
    public static func sentSQL(message: String, device: String) -> String {
        """
        EXISTS (SELECT 1 FROM delivery_spans s WHERE s.message_id = \(message) \
        AND int8range(s.message_id, s.message_id, '[]') @> \(message)::bigint \
        AND int8range(s.lo, s.hi, '[]') @> \(device)::bigint AND \(device) = ANY (s.device_ids))
        """
    }

    /// SQL that is true when device `device` has an outcome for message `message`, whichever.
    static func recordedSQL(message: String, device: String) -> String {
        """
        (EXISTS (SELECT 1 FROM deliveries x WHERE x.message_id = \(message) AND x.device_id = \(device)) \
        OR \(sentSQL(message: message, device: device)))
        """
    }
}
