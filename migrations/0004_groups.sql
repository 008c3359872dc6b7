-- Groups of apps ("multiple apps sharing one relay"): POST /v3/grouppush with Basic
-- group-<group_key>:<secret> pushes to every app of the group.
CREATE TABLE app_groups (
    id                  bigserial PRIMARY KEY,
    group_key           text NOT NULL UNIQUE CHECK (group_key ~ '^[0-9a-f]{24}$'),
    name                text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
    -- The group secret's slow hash, like apps.secret_hash.
    secret_hash         text NOT NULL,
    created_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE app_group_members (
    group_id            bigint NOT NULL REFERENCES app_groups(id) ON DELETE CASCADE,
    app_id              bigint NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
    PRIMARY KEY (group_id, app_id)
);
CREATE INDEX app_group_members_app ON app_group_members (app_id);
