/// The PostgreSQL NOTIFY channel schedulers LISTEN on: a schedule was created, changed or
/// deleted, so the earliest fire time may have moved.
public enum ScheduleChannel {
    public static let name = "pushrelay_schedules"
    /// The statement that wakes the schedulers (delivered when the transaction commits).
    public static let notify = "NOTIFY \(name)"
}
