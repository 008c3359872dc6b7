-- JPush `callback` (issue 28): a push's `callback: {url, params, type}` sends that message's
-- receipts to `url` with `params` echoed, per JPush's `type` bits (1 received, 2 clicked,
-- 8 accepted). The events go through the webhook outbox (migration 0045), signed with the
-- app's webhook secret: the app's webhook is what JPush calls the callback settings of its
-- console (the default URL and the signing), so an app without one has no callbacks.

-- A webhook may subscribe to no event: it then only gives callbacks their default URL and
-- their secret.
ALTER TABLE webhooks DROP CONSTRAINT webhooks_events_check;

-- Where an event goes when not to its app's webhook URL: its push's callback URL.
ALTER TABLE webhook_events ADD COLUMN url text;

-- A message's callback, beside its row as its receipt counters are (migration 0044), read by
-- the receipts' statement (ReceiptStatements.record). No row for a message without one.
CREATE TABLE message_callbacks (
    message_id  bigint PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
    -- NULL: the app's webhook URL.
    url         text,
    -- The push's `params` object, echoed in each event.
    params      jsonb NOT NULL,
    -- JPush's bits: 1 received, 2 clicked, 8 accepted.
    types       integer NOT NULL CHECK (types > 0 AND types & ~11 = 0)
);

-- Every statement that stores a message (a push, a batch entry, a schedule firing, a group's
-- app…) stores its body, validated (PushCore's PushCallback); the callback is read from it by
-- a trigger in the same transaction rather than by each of them. Its WHEN is checked in C, on
-- the body's text: a push without the word costs nothing. An accepted event (type 8) is
-- written at once, when the app has a webhook.
CREATE FUNCTION pushrelay_message_callback() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    callback jsonb := NEW.body::jsonb -> 'callback';
    types integer;
    params jsonb;
BEGIN
    IF jsonb_typeof(callback) IS DISTINCT FROM 'object' THEN
        RETURN NULL;
    END IF;
    types := coalesce((callback ->> 'type')::numeric::integer, 3);
    params := CASE WHEN jsonb_typeof(callback -> 'params') = 'object' THEN callback -> 'params' ELSE '{}' END;
    INSERT INTO message_callbacks (message_id, url, params, types) VALUES (NEW.id, callback ->> 'url', params, types);
    IF types & 8 <> 0 THEN
        INSERT INTO webhook_events (app_id, event, url, payload)
        SELECT w.app_id, 'callback', callback ->> 'url', jsonb_build_object(
            'event', 'callback', 'type', 8, 'msg_id', NEW.id::text, 'sendno', NEW.sendno,
            'accepted_at', to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'params', params)
        FROM webhooks w WHERE w.app_id = NEW.app_id;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER messages_callback AFTER INSERT ON messages
    FOR EACH ROW WHEN (strpos(NEW.body, '"callback"') > 0)
    EXECUTE FUNCTION pushrelay_message_callback();
