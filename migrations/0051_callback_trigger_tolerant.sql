-- The callback trigger of migration 0047, tolerant of a callback it cannot use. Bodies stored
-- before callbacks were built (schedules above all, which store a message at each firing)
-- may carry a `callback` that was accepted and ignored then and that today's rules refuse:
-- a `type` that is not one of JPush's bits, a `url` that is not text. Such a callback is
-- ignored, as it was when the body was accepted, instead of failing the message's INSERT
-- and with it the push. Bodies accepted since were validated by PushCore's PushCallback.
CREATE OR REPLACE FUNCTION pushrelay_message_callback() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    callback jsonb := NEW.body::jsonb -> 'callback';
    types integer := 3;
    params jsonb;
BEGIN
    IF jsonb_typeof(callback) IS DISTINCT FROM 'object'
       OR coalesce(jsonb_typeof(callback -> 'url'), 'string') <> 'string' THEN
        RETURN NULL;
    END IF;
    IF callback ? 'type' AND jsonb_typeof(callback -> 'type') <> 'null' THEN
        IF (callback ->> 'type') !~ '^(0?[12389]|1[01])$' THEN
            RETURN NULL;
        END IF;
        types := (callback ->> 'type')::integer;
    END IF;
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
