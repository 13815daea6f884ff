ALTER TABLE `passkeys` ADD `aaguid` text DEFAULT '00000000-0000-0000-0000-000000000000' NOT NULL;--> statement-breakpoint
ALTER TABLE `passkeys` ADD `provider` text DEFAULT 'Passkey' NOT NULL;