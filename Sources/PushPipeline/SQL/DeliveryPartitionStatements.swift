import PostgresStore

/// The statements that keep the day partitions of `deliveries` and `delivery_spans`
/// (`DeliveryPartitions`); the SQL functions they call do the work.
enum DeliveryPartitionStatements {
    /// Creates the partitions of the next $1 days that are missing; answers how many.
    static let create = SQLStatement("pushrelay_delivery_partitions_create", "SELECT pushrelay_create_delivery_partitions($1) AS n")

    /// Drops the partitions older than $1 days; a row per partition dropped.
    static let drop = SQLStatement("pushrelay_delivery_partitions_drop", "SELECT pushrelay_drop_delivery_partitions($1) AS name")

    static let all = [create, drop]
}
