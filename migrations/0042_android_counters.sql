-- A message's Android share of its counters, beside the totals (target_count, sent_count, …
-- count both platforms): the reports split them, iOS being the rest (JPush's ios_apns_sent,
-- android_pns_sent, sub_ios.apns and sub_android.android_pns).
ALTER TABLE messages
    ADD COLUMN android_target_count bigint NOT NULL DEFAULT 0,
    ADD COLUMN android_sent_count bigint NOT NULL DEFAULT 0;
