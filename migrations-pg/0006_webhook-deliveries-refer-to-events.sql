-- A delivery no longer keeps a copy of its event's body: the body is built from
-- the event row (event_id) at each attempt, so a change is stored once however
-- many endpoints receive it.
ALTER TABLE "webhook_deliveries" DROP COLUMN "body";
