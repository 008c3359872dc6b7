import PostgresStore

/// The statement that reserves a chunk's badges (`BadgeReservation`).
enum BadgeStatements {
    /// App $1's devices $2 (bigint[]) get badge $3, or their badge moved by $4 when $3 is
    /// NULL, kept within 0...$5; each row answers the badge it had before. Locked in id order.
    static let reserve = SQLStatement("pushrelay_badge_reserve", """
        UPDATE devices d
        SET badge = coalesce($3::integer, least(greatest(o.badge + $4::integer, 0), $5::integer))
        FROM (SELECT id, badge FROM devices WHERE app_id = $1 AND id = ANY ($2::bigint[]) ORDER BY id FOR UPDATE) o
        WHERE d.app_id = $1 AND d.id = o.id
        RETURNING d.id, o.badge AS previous
        """)

    static let all = [reserve]
}
