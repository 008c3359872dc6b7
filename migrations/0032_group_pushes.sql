-- Group pushes can be looked up: `/v3/grouppush` answers a group_msgid, and the group's
-- report calls (`/v3/group/messages/detail`) and `GET /admin/v1/groups/{group_key}/messages`
-- take it. A group push is recorded in the transaction that accepts its apps' messages.

-- A group's secret is rotated like an app's master secret (apps.secret_rotated_at).
ALTER TABLE app_groups ADD COLUMN secret_rotated_at timestamptz;
UPDATE app_groups SET secret_rotated_at = created_at;
ALTER TABLE app_groups ALTER COLUMN secret_rotated_at SET NOT NULL, ALTER COLUMN secret_rotated_at SET DEFAULT now();

-- One row per `/v3/grouppush`. The group_msgid is drawn from the msg_id generator, so it
-- is time-ordered and never equal to a msg_id. Deleting the group deletes its pushes'
-- records; the messages stay with their apps.
CREATE TABLE group_pushes (
    group_msgid         bigint PRIMARY KEY,
    group_id            bigint NOT NULL REFERENCES app_groups(id) ON DELETE CASCADE,
    created_at          timestamptz NOT NULL DEFAULT now()
);
-- A group's pushes, newest first (the admin listing pages on it).
CREATE INDEX group_pushes_by_group ON group_pushes (group_id, group_msgid);

-- Per app of the group: the message its push became, or the error its push got (1011 when
-- nobody of that app matched). No foreign key to messages: messages are deleted only with
-- their app, which deletes these rows through app_id.
CREATE TABLE group_push_messages (
    group_msgid         bigint NOT NULL REFERENCES group_pushes(group_msgid) ON DELETE CASCADE,
    app_id              bigint NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
    message_id          bigint,
    error_code          integer,
    error_message       text,
    PRIMARY KEY (group_msgid, app_id),
    CHECK ((message_id IS NULL) = (error_code IS NOT NULL)),
    CHECK ((error_code IS NULL) = (error_message IS NULL))
);
-- Deleting an app finds its rows.
CREATE INDEX group_push_messages_app ON group_push_messages (app_id);
