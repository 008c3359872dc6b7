-- The apns-collapse-id of every notification of a message: its first send, its retries and
-- its re-sends after a crash alike, so a duplicate replaces the first copy on the device.
-- Chosen when the push is accepted (PushCore's CollapseID): the collapse id of the message
-- `options.override_msg_id` names, else `options.apns_collapse_id`, else
-- 'pushrelay-<msg_id>'. Stored rather than derived again from the body, because an override
-- takes the overridden message's id, which may itself come from an override.
--
-- NULL for messages accepted before this migration: workers and overrides then use the
-- body's apns_collapse_id, else 'pushrelay-<msg_id>' (what their re-sends carried).
ALTER TABLE messages ADD COLUMN collapse_id text;
