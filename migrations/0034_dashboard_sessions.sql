-- Dashboard login sessions that are still open. The cookie is signed (a key derived from the
-- admin token); a cookie is a session only while its row is here, so logging out (the row
-- is deleted) ends it on every API node at once. Rows past expires_at are swept at login.
-- session_id is the SHA-256 (hex) of the cookie's nonce: the table alone cannot be
-- turned into a cookie.
CREATE TABLE dashboard_sessions (
    session_id text PRIMARY KEY,
    expires_at timestamptz NOT NULL
);
