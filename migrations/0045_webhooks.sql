-- Webhooks (issue 28): an app's endpoint for events, and the durable outbox they wait in.
-- The signing secret is sealed (AES-256-GCM, bound to the app key) like credentials: the
-- delivery worker opens it to sign; the API shows it once, when a PUT issues it.
CREATE TABLE webhooks (
    app_id        bigint PRIMARY KEY REFERENCES apps(id) ON DELETE CASCADE,
    url           text NOT NULL CHECK (url <> ''),
    -- The event types subscribed to ('receipt', 'device.invalidated', 'message.done').
    events        text[] NOT NULL CHECK (cardinality(events) > 0),
    sealed_secret bytea NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

-- The outbox: an event row is written in the transaction of what caused it (only for an app
-- whose webhook subscribes to its type), and delivered at least once by the delivery
-- workers. A row is leased by pushing next_attempt_at past the lease (a crashed node's rows
-- come due again by themselves); delivered rows are kept a while for the listing.
CREATE TABLE webhook_events (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id          bigint NOT NULL REFERENCES webhooks(app_id) ON DELETE CASCADE,
    event           text NOT NULL,
    -- The event's own JSON object, as sent in the request's "events" array.
    payload         jsonb NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    -- pending (waiting or leased), delivered, dead (retried past the horizon).
    state           text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'dead')),
    -- Where the retry horizon starts: the creation, or an admin's retry of a dead letter.
    horizon_from    timestamptz NOT NULL DEFAULT now(),
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    lease_owner     text,
    attempts        integer NOT NULL DEFAULT 0,
    last_attempt_at timestamptz,
    last_status     integer,
    last_error      text,
    finished_at     timestamptz
);
-- What the workers lease: the due pending rows, oldest due first.
CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at) WHERE state = 'pending';
-- The deliveries listing (newest first, per app) and the sweep of delivered rows.
CREATE INDEX webhook_events_app ON webhook_events (app_id, id);
CREATE INDEX webhook_events_finished ON webhook_events (finished_at) WHERE state = 'delivered';

-- message.done: a message becomes done in several statements (the outcome writes, a resolver
-- cutting no chunk, an unparsable body), so the event is written by a trigger on the state's
-- change, in the same transaction. Its WHEN is checked in C: a message not finishing costs
-- nothing, one finishing costs one index probe of `webhooks` when its app has none.
CREATE FUNCTION webhook_message_done() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO webhook_events (app_id, event, payload)
    SELECT w.app_id, 'message.done', jsonb_build_object(
        'event', 'message.done', 'msg_id', NEW.id::text, 'sendno', NEW.sendno,
        'target', NEW.target_count, 'sent', NEW.sent_count, 'failed', NEW.failed_count,
        'invalidated', NEW.invalidated_count, 'expired', NEW.expired_count,
        'finished_at', to_char(coalesce(NEW.finished_at, now()) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
    FROM webhooks w WHERE w.app_id = NEW.app_id AND 'message.done' = ANY (w.events);
    RETURN NULL;
END
$$;
CREATE TRIGGER messages_webhook_done AFTER UPDATE OF state ON messages
    FOR EACH ROW WHEN (NEW.state = 'done' AND OLD.state <> 'done')
    EXECUTE FUNCTION webhook_message_done();
