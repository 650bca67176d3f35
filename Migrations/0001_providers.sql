-- Push providers: a named APNs app (topic = bundle id) or FCM project that tokens belong to.
CREATE TABLE providers (
    name        text PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9._-]{0,62}$'),
    service     text NOT NULL CHECK (service IN ('apns', 'fcm')),
    topic       text,
    project_id  text,
    created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    CONSTRAINT providers_apns_has_topic CHECK ((service = 'apns') = (topic IS NOT NULL)),
    CONSTRAINT providers_project_is_fcm CHECK (service = 'fcm' OR project_id IS NULL)
);
