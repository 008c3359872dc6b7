-- Scheduled pushes (/v3/schedules): each occurrence of a schedule's trigger becomes a
-- normal push with its own msg_id. The scheduler claims due schedules with
-- FOR UPDATE SKIP LOCKED and, in one transaction, records the occurrence in
-- schedule_fires (unique per schedule and occurrence), accepts the push and moves the
-- schedule's watermark: that is what fires each occurrence once across nodes.
CREATE TABLE schedules (
    -- JPush's schedule_id: a UUID.
    id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    app_id              bigint NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
    -- Idempotency key: creating again with the same cid answers the first schedule.
    cid                 text,
    name                text NOT NULL CHECK (octet_length(name) BETWEEN 1 AND 255),
    enabled             boolean NOT NULL,
    -- The trigger in JPush's shape with time_zone always written (Scheduling's ScheduleTrigger.json).
    trigger             text NOT NULL,
    -- The push body, validated like POST /v3/push when the schedule was written.
    push                text NOT NULL,
    -- The latest occurrence handled (fired or missed), or the moment of the last change
    -- minus a minute: occurrences after it are due. See Scheduling's CatchUpDecision.
    watermark           timestamptz,
    -- The first occurrence after the watermark; NULL when disabled or run out.
    next_fire_at        timestamptz,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    UNIQUE (app_id, cid)
);
-- The scheduler's wake-up and claim: the earliest due schedule first.
CREATE INDEX schedules_due ON schedules (next_fire_at) WHERE next_fire_at IS NOT NULL;
-- The paged listing, oldest first.
CREATE INDEX schedules_app ON schedules (app_id, created_at, id);

-- One row per handled occurrence: sent (with its msg_id), missed (the relay was down
-- longer than the grace period) or failed (the push was refused then, e.g. nobody
-- matched the audience; `error` says why).
CREATE TABLE schedule_fires (
    schedule_id         uuid NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
    occurrence          timestamptz NOT NULL,
    outcome             text NOT NULL CHECK (outcome IN ('sent', 'missed', 'failed')),
    -- No foreign key: message retention must not be held up by schedules.
    message_id          bigint,
    error               text,
    fired_at            timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (schedule_id, occurrence),
    CHECK ((outcome = 'sent') = (message_id IS NOT NULL))
);
