import APNSClient

/// The client's reason enum, named without the ambiguity of files that import both modules.
typealias ClientReason = APNSReason
