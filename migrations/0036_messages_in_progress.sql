-- The messages still being resolved or sent, for /metrics' pushrelay_messages_in_progress:
-- without it every scrape read the whole messages table (messages_resolving covers
-- 'resolving' only). Small: a message leaves it when its last chunk is done.
CREATE INDEX messages_in_progress ON messages (state) WHERE state IN ('resolving', 'sending');
