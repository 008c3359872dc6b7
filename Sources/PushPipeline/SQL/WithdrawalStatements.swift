import PostgresStore

/// The statements that withdraw a message ($1 its id), in one transaction: its state read
/// and locked, then its chunks not yet leased closed and the message withdrawn; and the one
/// that holds a message's chunks back (a withdrawal postponed, in effect: nothing is sent
/// before then).
enum WithdrawalStatements {
    /// The state of message $1 if it is app $2's, locked until the transaction ends.
    static let lockState = SQLStatement("pushrelay_withdraw_lock", "SELECT state FROM messages WHERE id = $1 AND app_id = $2 FOR UPDATE")

    /// Chunks being sent stop at their next batch: workers re-read the state there.
    static let withdraw = SQLStatement("pushrelay_withdraw", """
        WITH closed AS (
            UPDATE push_chunks SET state = 'done', lease_owner = NULL, lease_expires_at = NULL
            WHERE message_id = $1 AND state = 'ready'
            RETURNING id
        )
        UPDATE messages SET state = 'withdrawn', finished_at = now(),
               chunks_pending = chunks_pending - (SELECT count(*) FROM closed)
        WHERE id = $1
        """)

    /// Message $1's ready chunks become available at $2 (Unix milliseconds).
    static let hold = SQLStatement("pushrelay_hold_chunks", """
        UPDATE push_chunks SET available_at = to_timestamp($2::bigint / 1000.0) WHERE message_id = $1 AND state = 'ready'
        """)

    static let all = [lockState, withdraw, hold]
}
