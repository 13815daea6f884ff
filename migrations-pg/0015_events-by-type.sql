-- A feed read filtered by type reads each type's ids in id order from these
-- (a customer's by owner, an employee's across owners) and merges them: its
-- cost no longer grows with the events of other types it skips.
CREATE INDEX "events_owner_type" ON "events" USING btree ("owner_id","type","id");--> statement-breakpoint
CREATE INDEX "events_type" ON "events" USING btree ("type","id");
