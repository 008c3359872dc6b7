/// ISO 8601 in UTC as PostgreSQL renders it, so timestamps need no parsing on the way out.
let sqlISOTimestamp = #"'YYYY-MM-DD"T"HH24:MI:SS"Z"'"#

/// `column` (a timestamptz) rendered in ISO 8601, UTC.
public func isoTimestampSQL(_ column: String) -> String {
    "to_char(\(column) AT TIME ZONE 'UTC', \(sqlISOTimestamp))"
}
