import APNSSimulator

/// The simulator's reason enum: `APNSReason` is ambiguous in files that import both
/// modules, and `APNSSimulator.APNSReason` names the class, not the module.
typealias SimulatorReason = APNSReason
