/// The runs of device ids an outcome write records in `delivery_spans` (migration 0023), from
/// which `POST /v3/devices/status` finds a device's last delivery: a device's spans are
/// those of its app containing its id, each confirmed by a primary-key probe into
/// `deliveries`. One row per run instead of one index entry per device.
///
/// A broadcast's or tag push's chunk is made in device id order, so its devices form one
/// narrow run. Scattered devices (a push to a list of devices, an alias) would make one wide
/// span that every status lookup in that range has to probe and reject, so a run ends
/// wherever two ids lie more than `maxGap` apart.
enum DeliverySpans {
    /// The widest gap kept inside a run: wider than the gaps between an app's devices in a
    /// chunk unless the app owns under about 0.1% of the ids, narrow enough that a span of
    /// scattered devices covers few others.
    static let maxGap: Int64 = 1024

    /// The runs of `ids` (any order, duplicates allowed), ascending: consecutive ids at most
    /// `maxGap` apart share a run.
    static func runs(_ ids: [Int64], maxGap: Int64 = maxGap) -> [ClosedRange<Int64>] {
        var runs: [ClosedRange<Int64>] = []
        for id in ids.sorted() {
            if let last = runs.last {
                let (gap, overflow) = id.subtractingReportingOverflow(last.upperBound)
                if !overflow && gap <= maxGap {
                    runs[runs.count - 1] = last.lowerBound...id
                    continue
                }
            }
            runs.append(id...id)
        }
        return runs
    }
}
